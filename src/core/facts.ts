/**
 * Distinctive strings in agent text: the facts a later step may need again (file paths, identifiers,
 * numbers, hashes). The mock summarizer keeps or loses them; reference recall looks for them.
 *
 * Rules (each match must be at least 4 characters):
 * - path: a slash-separated name with an extension (`django/db/models/base.py`), or a bare file name
 *   with a common source extension (`setup.cfg`);
 * - identifier: snake_case with an underscore (`_delete_composed_index`), or camelCase / PascalCase
 *   with an inner capital (`separabilityMatrix`, `URLValidator`), at least 6 characters;
 * - number: 3 or more digits, optionally with a decimal part (`378`, `0.125` is too short, `3.14159`);
 * - hash: 7 to 40 hex digits with at least one letter and one digit (`1f521cfc5c`), not part of a
 *   number (the mantissa of `4.75e-09` is no hash).
 * A match inside an earlier, longer match (the file name of a path) is not a fact of its own.
 */

const PATTERNS: readonly RegExp[] = [
  /(?:[\w.-]+\/)+[\w.-]+\.[A-Za-z]\w{0,5}\b/g,
  /\b[\w-]+\.(?:py|ts|tsx|js|jsx|rs|go|java|c|h|cc|cpp|rb|php|md|rst|json|yaml|yml|toml|txt|cfg|ini|html|css|sh|sql)\b/g,
  /\b_*[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+\b/g,
  /\b[a-z]+[A-Z][A-Za-z0-9]*\b|\b[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*\b|\b[A-Z]{2,}[a-z][A-Za-z0-9]*\b/g,
  /\b\d{3,}(?:\.\d+)?\b/g,
  /(?<![\w.-])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}(?![\w.-])/g,
];

const MIN_LENGTH = 4;
const MIN_IDENTIFIER = 6;

/** The facts in `text`, unique, in order of first appearance. */
export function extractFacts(text: string): string[] {
  const found = new Map<string, number>();
  const spans: [number, number][] = [];
  const inside = (start: number, end: number): boolean => spans.some(([s, e]) => start >= s && end <= e);
  PATTERNS.forEach((pattern, kind) => {
    for (const match of text.matchAll(pattern)) {
      const fact = match[0];
      const [start, end] = [match.index, match.index + fact.length];
      const tooShort = fact.length < (kind === 2 || kind === 3 ? MIN_IDENTIFIER : MIN_LENGTH);
      if (tooShort || inside(start, end)) continue;
      spans.push([start, end]);
      if (!found.has(fact)) found.set(fact, start);
    }
  });
  return [...found.entries()].sort((a, b) => a[1] - b[1]).map(([fact]) => fact);
}

/**
 * A stable pseudo-random number in [0, 1) for (seed, key): FNV-1a, then murmur3's final mix so keys
 * that differ only in their last characters (sequential numbers) spread evenly.
 */
export function seededUnit(seed: number, key: string): number {
  let hash = 0x811c9dc5 ^ seed;
  for (let i = 0; i < key.length; i++) {
    hash ^= key.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return (hash >>> 0) / 0x1_0000_0000;
}
