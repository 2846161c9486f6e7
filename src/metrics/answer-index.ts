/**
 * An offload store that knows, as files are written, which of the strings a replay will look for
 * (probe answers, the references a reactive agent needs) each file holds, as written or JSON-escaped
 * (judgeProbe's recoverable test). Judging a string then reads only the files that hold it, not every
 * file of a store that grows with the run.
 */
import type { Quote, TextPart } from '../core/composed-text.js';
import { multiSearch } from '../core/multi-search.js';
import type { OffloadStore } from '../core/offload-store.js';

export interface IndexedStore extends OffloadStore {
  /** The store as judgeProbe reads it for `text`: only the files that may hold it (all, for a string not indexed). */
  holding(text: string): Pick<OffloadStore, 'list' | 'read'>;
}

/**
 * The search for a replay's strings (each as written and JSON-escaped), shared by the stores of one
 * scenario's runs: a quoted text (a message an archive holds) is searched once per thread, whichever
 * run's archive quotes it.
 */
export interface AnswerSearch {
  readonly patterns: readonly string[];
  /** The longest pattern's length. */
  readonly longest: number;
  /** The patterns that occur in `text` (starting at `from` or later). */
  find(text: string, from?: number): Set<number>;
  /** The patterns in a quote's text: searched once per quoted object. */
  inQuote(quote: Quote): ReadonlySet<number>;
}

export function answerSearch(strings: Iterable<string>): AnswerSearch {
  const texts = [...new Set(strings)];
  const patterns = [...new Set(texts.flatMap((t) => [t, JSON.stringify(t).slice(1, -1)]))];
  const search = multiSearch(patterns);
  const quoted = new WeakMap<object, ReadonlySet<number>>();
  return {
    patterns,
    longest: search.longest,
    find: (text, from) => search.find(text, from),
    inQuote({ owner, text }) {
      let found = quoted.get(owner);
      if (found === undefined) quoted.set(owner, (found = search.find(text)));
      return found;
    },
  };
}

/**
 * The patterns that occur in `content` (what `parts` join) starting at `from` or later: each quote's
 * own from `search.inQuote`, the rest from searching what lies near literal text and between two
 * quotes (an occurrence not inside one quote overlaps a literal part or spans a seam, and is no
 * longer than the longest pattern), merged into as few searches as they make.
 */
export function foundInParts(search: AnswerSearch, content: string, parts: readonly TextPart[], from = 0): Set<number> {
  const found = new Set<number>();
  const reach = search.longest - 1;
  let start = -1; // the region to search next: [start, end)
  let end = -1;
  const flush = (): void => {
    if (end > start) for (const p of search.find(content.slice(start, end))) found.add(p);
    start = end = -1;
  };
  const searchAround = (a: number, b: number): void => {
    const lo = Math.max(from, a);
    const hi = Math.min(content.length, b);
    if (hi <= lo) return;
    if (start >= 0 && lo <= end) {
      end = Math.max(end, hi);
      return;
    }
    flush();
    start = lo;
    end = hi;
  };
  const add = (p: number): void => void found.add(p);
  let at = 0;
  let afterQuote = false;
  for (const part of parts) {
    const a = at;
    if (typeof part === 'string') {
      at += part.length;
      if (part.length === 0) continue;
      searchAround(a - reach, at + reach);
      afterQuote = false;
      continue;
    }
    at += part.text.length;
    if (afterQuote) searchAround(a - reach, a + reach);
    if (a >= from) search.inQuote(part).forEach(add);
    else searchAround(a, at); // a quote the search starts inside: only its part from `from` on
    afterQuote = true;
  }
  flush();
  return found;
}

/** `store`, indexed for `search`'s strings on every write. */
export function indexStore(store: OffloadStore, search: AnswerSearch): IndexedStore {
  const { patterns } = search;
  const patternOf = new Map(patterns.map((p, i) => [p, i]));
  const filesWith = patterns.map(() => new Set<string>()); // by pattern
  const patternsIn = new Map<string, Set<number>>(); // by path: what to forget when it is written again
  const read = (path: string): string | undefined => store.read(path);
  return {
    write(path, content, parts) {
      const before = store.read(path);
      const at = store.write(path, content, parts);
      const had = patternsIn.get(at) ?? new Set<number>();
      // Appended to (a conversation archive, written whole at every summary): only the new text and the
      // seam are searched, not the whole file again.
      const appended = before !== undefined && content.length >= before.length && content.startsWith(before);
      const from = appended ? Math.max(0, before.length - search.longest + 1) : 0;
      const found = parts === undefined ? search.find(content, from) : foundInParts(search, content, parts, from);
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
