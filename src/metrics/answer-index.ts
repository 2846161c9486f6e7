/**
 * An offload store that knows, as files are written, which of the strings a replay will look for
 * (probe answers, the references a reactive agent needs) each file holds, as written or JSON-escaped
 * (judgeProbe's recoverable test). Judging a string then reads only the files that hold it, not every
 * file of a store that grows with the run.
 */
import { multiSearch } from '../core/multi-search.js';
import type { OffloadStore } from '../core/offload-store.js';

export interface IndexedStore extends OffloadStore {
  /** The store as judgeProbe reads it for `text`: only the files that may hold it (all, for a string not indexed). */
  holding(text: string): Pick<OffloadStore, 'list' | 'read'>;
}

/** `store`, indexed for `strings` on every write. */
export function indexStore(store: OffloadStore, strings: Iterable<string>): IndexedStore {
  const texts = [...new Set(strings)];
  const patterns = [...new Set(texts.flatMap((t) => [t, JSON.stringify(t).slice(1, -1)]))];
  const search = multiSearch(patterns);
  const patternOf = new Map(patterns.map((p, i) => [p, i]));
  const filesWith = patterns.map(() => new Set<string>()); // by pattern
  const patternsIn = new Map<string, Set<number>>(); // by path: what to forget when it is written again
  const read = (path: string): string | undefined => store.read(path);
  return {
    write(path, content) {
      const before = store.read(path);
      const at = store.write(path, content);
      const had = patternsIn.get(at) ?? new Set<number>();
      // Appended to (a conversation archive, written whole at every summary): only the new text and the
      // seam are searched, not the whole file again.
      const appended = before !== undefined && content.length >= before.length && content.startsWith(before);
      const found = appended ? search.find(content, Math.max(0, before.length - search.longest + 1)) : search.find(content);
      if (appended) had.forEach((p) => found.add(p));
      else for (const p of had) filesWith[p]!.delete(at);
      patternsIn.set(at, found);
      for (const p of found) filesWith[p]!.add(at);
      return at;
    },
    read,
    list: () => store.list(),
    holding(text) {
      const plain = patternOf.get(text);
      if (plain === undefined) return store;
      const escaped = patternOf.get(JSON.stringify(text).slice(1, -1))!;
      return { list: () => [...new Set([...filesWith[plain]!, ...filesWith[escaped]!])].sort(), read };
    },
  };
}
