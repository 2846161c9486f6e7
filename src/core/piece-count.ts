/**
 * Exact BPE token counts, piece by piece, over a shared rank table (rank-table.ts), with one lookup
 * per piece seen before.
 *
 * This is gpt-tokenizer's countTokens (version 4) with special tokens counted as text: the text is
 * split with the encoding's pre-tokenizer pattern into pieces; a piece that is a token (its whole
 * string is in the table) counts 1, else the number of parts its bytes' byte-pair merge ends with
 * (the lowest-ranked adjacent pair merged first, the leftmost of equals). A replay counts the same
 * pieces over and over (a summary request re-sends turns already counted as messages), so each
 * piece's count is remembered. Tests compare with gpt-tokenizer on real and random text.
 */
import { CL100K_TOKEN_SPLIT_REGEX, O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants';
import { exactRank, NO_RANK, partRank, type RankTable } from './rank-table.js';

const SPLIT_PATTERNS = { o200k_base: O200K_TOKEN_SPLIT_REGEX, cl100k_base: CL100K_TOKEN_SPLIT_REGEX } as const;

/** Pieces remembered before the memo starts over. */
const MEMO_PIECES = 200_000;

/** Slots of the hot cache (a power of 2), and the longest piece it holds, in UTF-16 code units. */
const HOT_SLOTS = 8192;
const HOT_CHARS = 16;

/** Above every rank: a pair that is no token. */
const NEVER = 0x7fffffff;

/**
 * A count function over `table`; it counts special-token text such as "<|endoftext|>" as plain text.
 * `hotSlots` (a power of 2, default HOT_SLOTS) sizes the cache of short pieces: tests make it tiny, so
 * that every piece meets another in its slot.
 */
export function pieceCounter(table: RankTable, hotSlots = HOT_SLOTS): (text: string) => number {
  // Pieces are read with a sticky test (no match array built per piece: the split 11-16% faster);
  // where no piece starts (no such text is known), the global pattern finds the next one, as
  // gpt-tokenizer's matchAll would.
  const anywhere = new RegExp(SPLIT_PATTERNS[table.encoding]); // own lastIndex
  const here = new RegExp(anywhere.source, 'yu');
  const encoder = new TextEncoder();
  let key = new Uint8Array(256); // the piece's UTF-8 bytes
  let starts = new Int32Array(257); // the merge's part boundaries
  let ranks = new Int32Array(257); // ranks[i]: the rank of parts i and i + 1 merged
  const memo = new Map<string, number>();
  // The counts of short pieces most recently seen, by a hash of their characters, in typed arrays: a
  // piece found here is neither cut from its text nor looked up in the memo, whose entries lie all
  // over the heap (in a matrix worker the memo's lookups were the largest single cost of counting).
  const hotChars = new Uint16Array(hotSlots * HOT_CHARS);
  const hotLength = new Uint8Array(hotSlots); // 0: empty
  const hotTokens = new Int32Array(hotSlots);

  /** The piece's bytes into `key`, and its length; negative when the piece holds a lone surrogate (never a whole token). */
  const encode = (piece: string): number => {
    if (key.length < piece.length * 3) key = new Uint8Array(piece.length * 3);
    let lone = false;
    for (let i = 0; i < piece.length; i++) {
      const code = piece.charCodeAt(i);
      if (code < 0x80) {
        key[i] = code;
        continue;
      }
      for (let j = i; j < piece.length; j++) {
        const c = piece.charCodeAt(j);
        if (c >= 0xd800 && c <= 0xdbff && j + 1 < piece.length && (piece.charCodeAt(j + 1) & 0xfc00) === 0xdc00) j++;
        else if (c >= 0xd800 && c <= 0xdfff) lone = true;
      }
      const length = encoder.encodeInto(piece, key).written;
      return lone ? -length : length;
    }
    return piece.length;
  };

  /** The rank of key[from, to) as one token (a part of the piece key[0, length)), or NEVER. */
  const rankOr = (from: number, to: number, length: number): number => {
    const rank = partRank(table, key, from, to, length);
    return rank === NO_RANK ? NEVER : rank;
  };

  /** The number of parts the byte-pair merge of key[0, length) ends with. */
  const mergedParts = (length: number): number => {
    if (starts.length <= length) {
      starts = new Int32Array(length + 1);
      ranks = new Int32Array(length + 1);
    }
    let parts = length + 1; // entries in starts (and ranks)
    for (let i = 0; i <= length; i++) starts[i] = i;
    for (let i = 0; i <= length; i++) ranks[i] = i < length - 1 ? rankOr(i, i + 2, length) : NEVER;
    while (parts > 1) {
      let lowest = NEVER;
      let at = -1;
      for (let i = 0; i < parts - 1; i++) {
        if (ranks[i]! < lowest) {
          lowest = ranks[i]!;
          at = i;
        }
      }
      if (at < 0) break;
      // Parts at and at + 1 merge: the boundary between them goes, and the pairs around it change.
      starts.copyWithin(at + 1, at + 2, parts);
      ranks.copyWithin(at, at + 1, parts);
      parts -= 1;
      ranks[at] = at + 2 < parts ? rankOr(starts[at]!, starts[at + 2]!, length) : NEVER;
      if (at > 0) ranks[at - 1] = rankOr(starts[at - 1]!, starts[at + 1]!, length);
    }
    return parts - 1;
  };

  const countPiece = (piece: string): number => {
    if (piece.length === 1 && piece.charCodeAt(0) < 0x80) return 1;
    const length = encode(piece);
    if (length > 0 && exactRank(table, key, 0, length) !== NO_RANK) return 1;
    return mergedParts(Math.abs(length));
  };

  return (text) => {
    let total = 0;
    here.lastIndex = 0;
    while (here.lastIndex < text.length) {
      const start = here.lastIndex;
      if (!here.test(text)) {
        anywhere.lastIndex = start;
        const next = anywhere.exec(text);
        if (next === null) break;
        here.lastIndex = next.index;
        continue;
      }
      const end = here.lastIndex;
      const length = end - start;
      let slot = -1;
      if (length <= HOT_CHARS) {
        let hash = length;
        for (let i = start; i < end; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
        slot = (hash >>> 16) & (hotSlots - 1);
        if (hotLength[slot] === length) {
          const at = slot * HOT_CHARS - start;
          let i = start;
          while (i < end && hotChars[at + i] === text.charCodeAt(i)) i++;
          if (i === end) {
            total += hotTokens[slot]!;
            continue;
          }
        }
      }
      const piece = text.slice(start, end);
      let tokens = memo.get(piece);
      if (tokens === undefined) {
        tokens = countPiece(piece);
        if (memo.size >= MEMO_PIECES) memo.clear();
        memo.set(piece, tokens);
      }
      if (slot >= 0) {
        const at = slot * HOT_CHARS - start;
        for (let i = start; i < end; i++) hotChars[at + i] = text.charCodeAt(i);
        hotLength[slot] = length;
        hotTokens[slot] = tokens;
      }
      total += tokens;
    }
    return total;
  };
}
