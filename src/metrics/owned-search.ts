/**
 * One search of a scenario's strings (probe answers, reference targets, and their JSON-escaped forms)
 * shared by the replay's two indexes of them: which strings each context message holds (reference
 * recall, probe verdicts: context-text.ts) and which each file of the offload store holds (the
 * archives of the conversation: answer-index.ts). Both read the same texts, a message's content and
 * its calls' arguments, and each text is read once per thread for both, whichever asks first.
 */
import { multiSearch } from '../core/multi-search.js';

export interface OwnedSearch {
  /** The strings searched, deduplicated; a found string is its index here. */
  readonly patterns: readonly string[];
  /** Each pattern's index. */
  readonly indexOf: ReadonlyMap<string, number>;
  /** The patterns that occur in `text` (starting at `from` or later). */
  find(text: string, from?: number): Set<number>;
  /**
   * The patterns in the text of `owner`: the object whose text it is and always will be (a frozen
   * message for its content, a tool call for its arguments). Searched once per owner.
   */
  ofOwner(owner: object, text: string): ReadonlySet<number>;
}

const NONE: ReadonlySet<number> = new Set();

/** The search for `strings` (empty ones never match). */
export function ownedSearch(strings: Iterable<string>): OwnedSearch {
  const patterns = [...new Set(strings)].filter((s) => s !== '');
  const search = multiSearch(patterns);
  const found = new WeakMap<object, ReadonlySet<number>>();
  return {
    patterns,
    indexOf: new Map(patterns.map((p, i) => [p, i])),
    find: (text, from) => search.find(text, from),
    ofOwner(owner, text) {
      let held = found.get(owner);
      if (held === undefined) {
        const set = search.find(text);
        found.set(owner, (held = set.size === 0 ? NONE : set));
      }
      return held;
    },
  };
}

/** `strings` as written and JSON-escaped (a JSON file holds a string escaped), deduplicated. */
export function withEscaped(strings: Iterable<string>): string[] {
  return [...new Set([...strings].flatMap((t) => [t, JSON.stringify(t).slice(1, -1)]))];
}
