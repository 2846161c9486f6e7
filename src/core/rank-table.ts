/**
 * A BPE encoding's rank table (token bytes -> rank) in one SharedArrayBuffer: the matrix's worker
 * threads read the main thread's table instead of each loading the tokenizer's own (a 200,000-entry
 * Map built from a 2.4 MB module: about 0.5 s of CPU and 60 MB of memory per thread at its peak).
 *
 * Built from the encoding's .tiktoken file as gpt-tokenizer ships it (base64 bytes and rank per
 * line), with the one difference gpt-tokenizer's lookups make: it finds a byte sequence that is valid
 * UTF-8 by decoding it to a string first, and its decoder drops a leading byte-order mark, so such a
 * sequence is looked up without its first BOM, and the tokens that begin with one are never found
 * (o200k_base has 9). piece-count.ts counts with this table; its tests compare with gpt-tokenizer.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { CtxbenchError } from './errors.js';

export const RANKED_ENCODINGS = ['o200k_base', 'cl100k_base'] as const;
export type RankedEncoding = (typeof RANKED_ENCODINGS)[number];

/** The table's views over its one shared buffer. */
export interface RankTable {
  readonly encoding: RankedEncoding;
  readonly buffer: SharedArrayBuffer;
  /** Entry i's bytes are bytes[offsets[i], offsets[i + 1]); its rank is ranks[i]. */
  readonly offsets: Uint32Array;
  readonly ranks: Int32Array;
  /** Open addressing on hashBytes: entry index + 1, 0 where empty. */
  readonly slots: Int32Array;
  readonly bytes: Uint8Array;
}

const HEADER_INTS = 4; // entries, byte length, slot count, unused

/** What exactRank and partRank answer for bytes that are no token. */
export const NO_RANK = -1;

/** FNV-1a over bytes[from, to). */
function hashBytes(bytes: Uint8Array, from: number, to: number): number {
  let hash = 0x811c9dc5;
  for (let i = from; i < to; i++) hash = Math.imul(hash ^ bytes[i]!, 0x01000193);
  return hash >>> 0;
}

/** The rank of the token whose bytes are key[from, to) exactly, or NO_RANK. */
export function exactRank(table: RankTable, key: Uint8Array, from: number, to: number): number {
  const { slots, offsets, bytes, ranks } = table;
  const mask = slots.length - 1;
  const length = to - from;
  for (let slot = hashBytes(key, from, to) & mask; ; slot = (slot + 1) & mask) {
    const entry = slots[slot]! - 1;
    if (entry < 0) return NO_RANK;
    const start = offsets[entry]!;
    if (offsets[entry + 1]! - start !== length) continue;
    let i = 0;
    while (i < length && bytes[start + i] === key[from + i]) i++;
    if (i === length) return ranks[entry]!;
  }
}

const isContinuation = (byte: number): boolean => (byte & 0xc0) === 0x80;

/** Whether bytes[from, to) begins with a UTF-8 byte-order mark (EF BB BF). */
const startsWithBom = (bytes: Uint8Array, from: number, to: number): boolean => to - from >= 3 && bytes[from] === 0xef && bytes[from + 1] === 0xbb && bytes[from + 2] === 0xbf;

/**
 * The rank gpt-tokenizer finds for key[from, to), a part of the valid UTF-8 bytes key[0, length)
 * (see above): a part that is itself valid UTF-8 (it ends at a character's end) and begins with a
 * BOM is looked up without it.
 */
export function partRank(table: RankTable, key: Uint8Array, from: number, to: number, length: number): number {
  if (startsWithBom(key, from, to) && (to === length || !isContinuation(key[to]!))) {
    return to - from === 3 ? NO_RANK : exactRank(table, key, from + 3, to);
  }
  return exactRank(table, key, from, to);
}

const BASE64 = new Int8Array(128).fill(-1);
[...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'].forEach((c, i) => (BASE64[c.charCodeAt(0)] = i));

/** Decodes base64 text[from, to) into out at `at`; returns the number of bytes written. */
function decodeBase64(text: Uint8Array, from: number, to: number, out: Uint8Array, at: number): number {
  let bits = 0;
  let count = 0;
  let written = 0;
  for (let i = from; i < to; i++) {
    const value = BASE64[text[i]!]!;
    if (value < 0) break; // "=" padding
    bits = (bits << 6) | value;
    count += 6;
    if (count >= 8) {
      count -= 8;
      out[at + written++] = (bits >> count) & 0xff;
    }
  }
  return written;
}

/** Whether bytes[from, to) is valid UTF-8 (as gpt-tokenizer's isValidUTF8 decides: no overlongs, surrogates or code points past U+10FFFF). */
function isValidUtf8(bytes: Uint8Array, from: number, to: number): boolean {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset + from, to - from);
  return Buffer.from(text.toString('utf8'), 'utf8').equals(text);
}

/** Calls `line` with each "<base64> <rank>" line of a .tiktoken file: where its base64 starts and ends, and its rank. */
function forEachLine(file: Uint8Array, line: (from: number, to: number, rank: number) => void): void {
  for (let start = 0; start < file.length; ) {
    let end = file.indexOf(10, start);
    if (end < 0) end = file.length;
    const space = file.indexOf(32, start);
    if (space > start && space < end) {
      let rank = 0;
      for (let i = space + 1; i < end; i++) rank = rank * 10 + file[i]! - 48;
      line(start, space, rank);
    }
    start = end + 1;
  }
}

/** Builds the table from a .tiktoken file's content. */
export function buildRankTable(encoding: RankedEncoding, file: Uint8Array): RankTable {
  let entries = 0;
  let byteLength = 0; // an upper bound: padding is counted
  forEachLine(file, (from, to) => {
    entries += 1;
    byteLength += Math.floor(((to - from) * 3) / 4);
  });
  const slotCount = 2 ** Math.ceil(Math.log2(entries * 2));
  const buffer = new SharedArrayBuffer((HEADER_INTS + (entries + 1) + entries + slotCount) * 4 + byteLength);
  new Int32Array(buffer, 0, HEADER_INTS).set([entries, byteLength, slotCount]);
  const table = viewRankTable(encoding, buffer);
  const { offsets, ranks, slots, bytes } = table;
  const mask = slotCount - 1;
  let entry = 0;
  let at = 0;
  forEachLine(file, (from, to, rank) => {
    offsets[entry] = at;
    ranks[entry] = rank;
    const length = decodeBase64(file, from, to, bytes, at);
    if (!startsWithBom(bytes, at, at + length) || !isValidUtf8(bytes, at, at + length)) {
      let slot = hashBytes(bytes, at, at + length) & mask;
      while (slots[slot] !== 0) slot = (slot + 1) & mask;
      slots[slot] = entry + 1;
    }
    at += length;
    entry += 1;
  });
  offsets[entries] = at;
  return table;
}

/** The views over a table's buffer (a worker thread's view of the table the main thread built). */
export function viewRankTable(encoding: RankedEncoding, buffer: SharedArrayBuffer): RankTable {
  const [entries, byteLength, slotCount] = new Int32Array(buffer, 0, HEADER_INTS) as unknown as [number, number, number];
  const ints = HEADER_INTS + (entries + 1) + entries + slotCount;
  return {
    encoding,
    buffer,
    offsets: new Uint32Array(buffer, HEADER_INTS * 4, entries + 1),
    ranks: new Int32Array(buffer, (HEADER_INTS + entries + 1) * 4, entries),
    slots: new Int32Array(buffer, (HEADER_INTS + 2 * entries + 1) * 4, slotCount),
    bytes: new Uint8Array(buffer, ints * 4, byteLength),
  };
}

/** This thread's table of each encoding: loaded on first use, or adopted from the thread that started it. */
const tables = new Map<RankedEncoding, RankTable>();

export function rankTable(encoding: RankedEncoding): RankTable {
  let table = tables.get(encoding);
  if (table === undefined) {
    const file = `gpt-tokenizer/data/${encoding}.tiktoken`;
    let content: Buffer;
    try {
      content = readFileSync(createRequire(import.meta.url).resolve(file));
    } catch (error) {
      const why = error instanceof Error ? error.message.split('\n')[0] : String(error);
      throw new CtxbenchError('TOKENIZER_MISSING', `the ${encoding} tokenizer's rank table ${file} cannot be read (${why}): reinstall the dependencies (npm ci)`);
    }
    table = buildRankTable(encoding, content);
    tables.set(encoding, table);
  }
  return table;
}

/** The buffer of this thread's table of `encoding`, for the threads it starts; undefined for an encoding without one (chars4). */
export function sharedRanks(encoding: string): SharedArrayBuffer | undefined {
  return (RANKED_ENCODINGS as readonly string[]).includes(encoding) ? rankTable(encoding as RankedEncoding).buffer : undefined;
}

/** Makes `buffer` (rankTable(encoding).buffer of another thread) this thread's table of `encoding`. */
export function adoptRankTable(encoding: RankedEncoding, buffer: SharedArrayBuffer): void {
  tables.set(encoding, viewRankTable(encoding, buffer));
}
