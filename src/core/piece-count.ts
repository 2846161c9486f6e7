/**
 * Exact BPE token counts, piece by piece, with one lookup per piece seen before.
 *
 * gpt-tokenizer's countTokens splits a text with its pre-tokenizer pattern into pieces and adds, per
 * piece, 1 when the piece is one token (a lookup in its 200k-entry rank map) or the length of its
 * byte-pair merge (through an LRU cache that deletes and re-inserts its entry on every hit). A replay
 * counts the same pieces over and over (a summary request re-sends turns already counted as
 * messages), so this counts each piece through one memo of its count: the same sum, about half the
 * time on the generated scenarios' content. It runs on the library's own pattern, rank map and merge,
 * so the counts are the library's (tests compare them on real and random text).
 */

/** The parts of gpt-tokenizer 4's BytePairEncodingCore a count needs (private in its types). */
interface EncodingCore {
  readonly tokenSplitRegex: RegExp;
  readonly bytePairStringRankEncoder: ReadonlyMap<string, number>;
  bytePairEncode(piece: string): readonly number[];
  setMergeCacheSize(size: number): void;
}

/** Pieces remembered before the memo starts over (the library's own merge cache holds 100,000). */
const MEMO_PIECES = 200_000;

/**
 * A count function over `encoding` (gpt-tokenizer's default export of an encoding module); it
 * counts special-token text such as "<|endoftext|>" as plain text, as countTokens does with no
 * special token allowed or disallowed.
 */
export function pieceCounter(encoding: unknown): (text: string) => number {
  const core = (encoding as { bytePairEncodingCoreProcessor?: EncodingCore }).bytePairEncodingCoreProcessor;
  if (!(core?.tokenSplitRegex instanceof RegExp) || !(core.bytePairStringRankEncoder instanceof Map) || typeof core.bytePairEncode !== 'function') {
    throw new Error('gpt-tokenizer is not the version ctxbench was built for (4.0.0): its encoder has no tokenSplitRegex, rank map or bytePairEncode');
  }
  core.setMergeCacheSize(0); // the memo below holds what its cache would
  const pattern = new RegExp(core.tokenSplitRegex); // own lastIndex, not the library's
  const ranks = core.bytePairStringRankEncoder;
  const memo = new Map<string, number>();
  return (text) => {
    let total = 0;
    pattern.lastIndex = 0;
    for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
      const piece = match[0];
      let tokens = memo.get(piece);
      if (tokens === undefined) {
        tokens = ranks.has(piece) ? 1 : core.bytePairEncode(piece).length;
        if (memo.size >= MEMO_PIECES) memo.clear();
        memo.set(piece, tokens);
      }
      total += tokens;
    }
    return total;
  };
}
