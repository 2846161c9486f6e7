/**
 * The generator's only source of randomness: mulberry32 streams, one per salt ("plan", "facts",
 * "world", "text") derived from the seed, so the same seed gives the same scenario on every platform
 * and one stream's draws never shift another's. Never Math.random.
 */

/** mulberry32: a tiny, fast 32-bit PRNG; the same seed gives the same sequence on every platform. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A stream seed for (seed, salt): FNV-1a over the salt, then murmur3's finalizer. */
function streamSeed(seed: number, salt: string): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < salt.length; i++) h = Math.imul(h ^ salt.charCodeAt(i), 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** The stream of `seed` named `salt`. */
export function rngStream(seed: number, salt: string): Rng {
  return new Rng(streamSeed(seed, salt));
}

const HEX = '0123456789abcdef';
const HEX_LETTERS = 'abcdef';
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export class Rng {
  private readonly next: () => number;
  constructor(seed: number) {
    this.next = mulberry32(seed);
  }
  unit(): number {
    return this.next();
  }
  /** A whole number in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }
  /** Standard normal (Box-Muller). */
  normal(): number {
    const u = 1 - this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.next());
  }
  /** exp(uniform(ln lo, ln hi)). */
  logUniform(lo: number, hi: number): number {
    return Math.exp(Math.log(lo) + this.next() * (Math.log(hi) - Math.log(lo)));
  }
  /** `count` distinct items, in their original order. */
  sample<T>(items: readonly T[], count: number): T[] {
    const idx = items.map((_, i) => i);
    for (let i = 0; i < Math.min(count, idx.length); i++) {
      const j = i + Math.floor(this.next() * (idx.length - i));
      [idx[i], idx[j]] = [idx[j]!, idx[i]!];
    }
    return idx
      .slice(0, count)
      .sort((a, b) => a - b)
      .map((i) => items[i]!);
  }
  /** Lowercase hex without a run of 6 digits (filler: never contains a planted number or hash). */
  hex(length: number): string {
    let out = '';
    let run = 0;
    for (let i = 0; i < length; i++) {
      const c = run >= 5 ? HEX_LETTERS[this.int(0, 5)]! : HEX[this.int(0, 15)]!;
      run = c >= '0' && c <= '9' ? run + 1 : 0;
      out += c;
    }
    return out;
  }
  /** Lowercase hex holding exactly one 6-digit run, bounded by letters (planted facts only). */
  factHex(length: number): string {
    const chars = this.hex(length).split('');
    const at = this.int(1, length - 8);
    chars[at - 1] = HEX_LETTERS[this.int(0, 5)]!;
    for (let i = 0; i < 6; i++) chars[at + i] = String(this.int(i === 0 ? 1 : 0, 9));
    chars[at + 6] = HEX_LETTERS[this.int(0, 5)]!;
    return chars.join('');
  }
  alnum(length: number): string {
    let out = '';
    for (let i = 0; i < length; i++) out += ALNUM[this.int(0, ALNUM.length - 1)]!;
    return out;
  }
}
