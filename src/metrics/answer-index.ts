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
      const at = store.write(path, content);
      for (const p of patternsIn.get(at) ?? []) filesWith[p]!.delete(at);
      const found = search.find(content);
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
