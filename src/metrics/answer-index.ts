/**
 * An offload store that knows, as files are written, which of the strings a replay will look for
 * (probe answers, the references a reactive agent needs) each file holds, as written or JSON-escaped
 * (judgeProbe's recoverable test). Judging a string then reads only the files that hold it, not every
 * file of a store that grows with the run.
 */
import { partText, type Quote, type TextPart } from '../core/composed-text.js';
import { confine, type OffloadStore } from '../core/offload-store.js';
import { ownedSearch, withEscaped, type OwnedSearch } from './owned-search.js';
import type { ProbeFiles } from './probe-verdict.js';

export interface IndexedStore extends OffloadStore {
  /** The files judgeProbe looks for `text` in: those that hold it, unread (every file, for a string not indexed). */
  holding(text: string): ProbeFiles;
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

/**
 * The search for `strings`, as written and JSON-escaped; over `shared` (which holds them all) when
 * given, so the texts it has read for other indexes are not read again.
 */
export function answerSearch(strings: Iterable<string>, shared?: OwnedSearch): AnswerSearch {
  const patterns = withEscaped(strings);
  const over = shared ?? ownedSearch(patterns);
  // Each of the shared search's patterns as one of these, or -1.
  const mine = new Int32Array(over.patterns.length).fill(-1);
  patterns.forEach((p, i) => {
    const at = over.indexOf.get(p);
    if (at !== undefined) mine[at] = i;
  });
  const own = (found: ReadonlySet<number>): Set<number> => {
    const set = new Set<number>();
    for (const p of found) if (mine[p]! >= 0) set.add(mine[p]!);
    return set;
  };
  const quoted = new WeakMap<object, ReadonlySet<number>>();
  return {
    patterns,
    longest: patterns.reduce((n, p) => Math.max(n, p.length), 0),
    find: (text, from) => own(over.find(text, from)),
    inQuote({ owner, text }) {
      let found = quoted.get(owner);
      if (found === undefined) quoted.set(owner, (found = own(over.ofOwner(owner, text))));
      return found;
    },
  };
}

/**
 * The patterns that occur in the text `parts` join: each quote's own from `search.inQuote`, the rest
 * from searching what lies near literal text and between two quotes (an occurrence not inside one
 * quote overlaps a literal part or spans a seam, and is no longer than the longest pattern), merged
 * into as few searches as they make. The whole text is never built.
 */
export function foundInParts(search: AnswerSearch, parts: readonly TextPart[]): Set<number> {
  const found = new Set<number>();
  const reach = search.longest - 1;
  const length = parts.reduce((n, part) => n + partText(part).length, 0);
  const regions: number[] = []; // [lo, hi) pairs, in order, apart
  const searchAround = (a: number, b: number): void => {
    const lo = Math.max(0, a);
    const hi = Math.min(length, b);
    if (hi <= lo) return;
    if (regions.length > 0 && lo <= regions[regions.length - 1]!) regions[regions.length - 1] = Math.max(regions[regions.length - 1]!, hi);
    else regions.push(lo, hi);
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
    search.inQuote(part).forEach(add);
    afterQuote = true;
  }
  // Each region's text, built in one pass over the parts (the regions are in order).
  let r = 0;
  let region = '';
  at = 0;
  for (const part of parts) {
    const text = partText(part);
    const end = at + text.length;
    while (r < regions.length && regions[r]! < end) {
      const hi = regions[r + 1]!;
      region += text.slice(Math.max(0, regions[r]! - at), hi - at);
      if (hi > end) break;
      search.find(region).forEach(add);
      region = '';
      r += 2;
    }
    at = end;
  }
  return found;
}

/** The last `n` characters of the text `parts` join. */
function tailOf(parts: readonly TextPart[], n: number): string {
  let tail = '';
  for (let i = parts.length - 1; i >= 0 && tail.length < n; i--) {
    const text = partText(parts[i]!);
    tail = text.slice(Math.max(0, text.length - (n - tail.length))) + tail;
  }
  return tail;
}

/** `store`, indexed for `search`'s strings on every write. */
export function indexStore(store: OffloadStore, search: AnswerSearch): IndexedStore {
  const { patterns } = search;
  const patternOf = new Map(patterns.map((p, i) => [p, i]));
  const filesWith = patterns.map(() => new Set<string>()); // by pattern
  const patternsIn = new Map<string, Set<number>>(); // by path: what to forget when it is written again
  const tails = new Map<string, string>(); // by path: the end of its text an append may complete a string with
  const seam = search.longest - 1;
  const read = (path: string): string | undefined => store.read(path);
  /** Records what file `at` holds now: `found`, with what it held before when `kept`. */
  const holds = (at: string, found: Set<number>, kept: boolean, tail: string): string => {
    const had = patternsIn.get(at) ?? new Set<number>();
    if (kept) had.forEach((p) => found.add(p));
    else for (const p of had) filesWith[p]!.delete(at);
    patternsIn.set(at, found);
    for (const p of found) filesWith[p]!.add(at);
    tails.set(at, tail);
    return at;
  };
  return {
    write(path, content) {
      if (typeof content !== 'string') return holds(store.write(path, content), foundInParts(search, content), false, tailOf(content, seam));
      const before = store.read(path);
      const at = store.write(path, content);
      // Written again with text added (an outside strategy's archive, written whole at every
      // summary): only the new text and the seam are searched, not the whole file again.
      const appended = before !== undefined && content.length >= before.length && content.startsWith(before);
      return holds(at, search.find(content, appended ? Math.max(0, before.length - seam) : 0), appended, tailOf([content], seam));
    },
    append(path, content) {
      // The seam: the file's last characters, literal text before what is added.
      const parts = [tails.get(confine(path)) ?? '', ...(typeof content === 'string' ? [content] : content)];
      return holds(store.append(path, content), foundInParts(search, parts), true, tailOf(parts, seam));
    },
    read,
    size: (path) => store.size(path),
    list: () => store.list(),
    holding(text) {
      const plain = patternOf.get(text);
      if (plain === undefined) return store;
      const escaped = patternOf.get(JSON.stringify(text).slice(1, -1))!;
      return { holdAnswer: true, list: () => [...new Set([...filesWith[plain]!, ...filesWith[escaped]!])].sort(), size: (path) => store.size(path) };
    },
  };
}
