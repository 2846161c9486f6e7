/**
 * Which of a fixed set of strings occur in a text, in one pass over the text whatever their number
 * (Aho-Corasick: a trie of the strings with failure links). Searching each string with `includes`
 * costs a pass per string; a replay searches every stored file for every probe answer.
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
  // The root's moves by code unit (0: none). The search spends most of a text at the root (no string
  // begun), where this array read replaces a Map lookup per character.
  const fromRoot = new Uint32Array(65_536);
  for (const [code, child] of next[0]!) fromRoot[code] = child;
  return {
    longest: strings.reduce((n, s) => Math.max(n, s.length), 0),
    find(text, from = 0) {
      const found = new Set<number>();
      let node = 0;
      for (let i = from; i < text.length; i++) {
        const code = text.charCodeAt(i);
        if (node === 0) {
          node = fromRoot[code]!;
          for (const index of out[node]!) found.add(index);
          continue;
        }
        let child = next[node]!.get(code);
        while (child === undefined && node !== 0) {
          node = fail[node]!;
          child = next[node]!.get(code);
        }
        node = child ?? 0;
        for (const index of out[node]!) found.add(index);
      }
      return found;
    },
  };
}
