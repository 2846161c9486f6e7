/**
 * Which of a fixed set of strings occur in a text, in one pass over the text whatever their number
 * (Aho-Corasick: a trie of the strings with failure links, turned into a table of every node's move
 * on every character the strings hold: one array read per character of the text). Searching each
 * string with `includes` costs a pass per string; a replay searches every stored file for every
 * probe answer, and every message of its contexts for the reference targets.
 */

export interface MultiSearch {
  /** The indexes (into the strings it was built from) of those that occur in `text` (from index `from` on). */
  find(text: string, from?: number): Set<number>;
  /** The longest string's length: a string found in a + b that is in neither lies within this - 1 of their seam. */
  readonly longest: number;
}

/** A search for `strings` (empty strings never match). */
export function multiSearch(strings: readonly string[]): MultiSearch {
  const next: Map<number, number>[] = [new Map()];
  const fail: number[] = [0];
  const out: number[][] = [[]];
  strings.forEach((s, index) => {
    if (s === '') return;
    let node = 0;
    for (let i = 0; i < s.length; i++) {
      const code = s.charCodeAt(i);
      let child = next[node]!.get(code);
      if (child === undefined) {
        child = next.length;
        next.push(new Map());
        fail.push(0);
        out.push([]);
        next[node]!.set(code, child);
      }
      node = child;
    }
    out[node]!.push(index);
  });
  // Breadth first, so a node's failure target (a shorter suffix) is complete before the node.
  const queue = [...next[0]!.values()];
  for (let head = 0; head < queue.length; head++) {
    const node = queue[head]!;
    for (const [code, child] of next[node]!) {
      let f = fail[node]!;
      while (f !== 0 && !next[f]!.has(code)) f = fail[f]!;
      const target = next[f]!.get(code);
      fail[child] = target !== undefined && target !== child ? target : 0;
      out[child] = [...out[child]!, ...out[fail[child]!]!];
      queue.push(child);
    }
  }
  const nodes = next.length;
  // The code units the strings hold, numbered from 1; any other one is 0, which leads back to the root.
  const symbols = new Uint16Array(65_536);
  let width = 1;
  for (const moves of next) for (const code of moves.keys()) if (symbols[code] === 0) symbols[code] = width++;
  const longest = strings.reduce((n, s) => Math.max(n, s.length), 0);
  if (nodes * width > MAX_TABLE_ENTRIES) return { longest, find: mapSearch(next, fail, out) };
  // The automaton's move from every node on every symbol (a node's missing ones are its failure
  // target's, complete before it in breadth-first order): one array read per character of the text.
  // A move holds its target's row (node x width), complemented (negative) when strings end there:
  // the scan reads one entry per character, and the strings' ends only where there are some.
  const moves = new Int32Array(nodes * width);
  const move = (child: number): number => (out[child]!.length > 0 ? ~(child * width) : child * width);
  for (const [code, child] of next[0]!) moves[symbols[code]!] = move(child);
  for (const node of queue) {
    const row = node * width;
    moves.copyWithin(row, fail[node]! * width, fail[node]! * width + width);
    for (const [code, child] of next[node]!) moves[row + symbols[code]!] = move(child);
  }
  return {
    longest,
    find(text, from = 0) {
      const found = new Set<number>();
      let row = 0;
      for (let i = from; i < text.length; i++) {
        row = moves[row + symbols[text.charCodeAt(i)]!]!;
        if (row >= 0) continue;
        row = ~row;
        const hits = out[row / width]!;
        for (let k = 0; k < hits.length; k++) found.add(hits[k]!);
      }
      return found;
    },
  };
}

/**
 * Entries (nodes x symbols) past which the move table is not built: 16 MB. A scenario's strings (its
 * probe answers, its reference targets: a few thousand characters) need a few hundred thousand.
 */
const MAX_TABLE_ENTRIES = 4_000_000;

/** The search without the move table: a node's moves in a Map, failure links followed as they come. */
function mapSearch(next: readonly Map<number, number>[], fail: readonly number[], out: readonly number[][]): MultiSearch['find'] {
  return (text, from = 0) => {
    const found = new Set<number>();
    let node = 0;
    for (let i = from; i < text.length; i++) {
      const code = text.charCodeAt(i);
      let child = next[node]!.get(code);
      while (child === undefined && node !== 0) {
        node = fail[node]!;
        child = next[node]!.get(code);
      }
      node = child ?? 0;
      for (const index of out[node]!) found.add(index);
    }
    return found;
  };
}
