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

/** The rules' patterns, in priority order, as written. `extractFacts` runs equivalent faster forms. */
export const FACT_PATTERNS = {
  path: /(?:[\w.-]+\/)+[\w.-]+\.[A-Za-z]\w{0,5}\b/g,
  file: /\b[\w-]+\.(?:py|ts|tsx|js|jsx|rs|go|java|c|h|cc|cpp|rb|php|md|rst|json|yaml|yml|toml|txt|cfg|ini|html|css|sh|sql)\b/g,
  snake: /\b_*[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+\b/g,
  camel: /\b[a-z]+[A-Z][A-Za-z0-9]*\b|\b[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*\b|\b[A-Z]{2,}[a-z][A-Za-z0-9]*\b/g,
  number: /\b\d{3,}(?:\.\d+)?\b/g,
  hash: /(?<![\w.-])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}(?![\w.-])/g,
} as const;
export type FactKind = keyof typeof FACT_PATTERNS;

const MIN_LENGTH = 4;
const MIN_IDENTIFIER = 6;
const KINDS = Object.keys(FACT_PATTERNS) as FactKind[];
const minLength = (kind: FactKind): number => (kind === 'snake' || kind === 'camel' ? MIN_IDENTIFIER : MIN_LENGTH);

/** [start, end) of each match, flattened: [s0, e0, s1, e1, ...], in order, never overlapping. */
type Spans = readonly number[];

/** No match: shared, never written to. */
const NO_SPANS: Spans = Object.freeze([]);

/** A character of the runs paths and hashes are made of: [\w.-]. */
function isRunChar(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95 || code === 46 || code === 45;
}

/**
 * The path pattern, tried only where a match can start: where a run of [\w.-] starts right before a
 * '/' (its first segment is that whole run). A match inside a run could take in the run characters
 * before it, so one starts at the run's start, which the greedy segments reach first; nor can one
 * start where the previous match ended inside a run (the previous one would have taken it in). The
 * pattern as written tries, and fails, at every position of every run: quadratic in a run's length.
 */
const PATH_HERE = new RegExp(FACT_PATTERNS.path.source, 'y');

function pathSpans(text: string): Spans {
  const spans: number[] = [];
  let end = 0;
  for (let slash = text.indexOf('/'); slash !== -1; slash = text.indexOf('/', slash + 1)) {
    let start = slash;
    while (start > end && isRunChar(text.charCodeAt(start - 1))) start--;
    if (start === slash || (start === end && isRunChar(text.charCodeAt(start - 1)))) continue;
    PATH_HERE.lastIndex = start;
    if (PATH_HERE.exec(text) === null) continue;
    end = PATH_HERE.lastIndex;
    spans.push(start, end);
    slash = end - 1;
  }
  return spans;
}

/**
 * The file-name pattern, tried only at dots followed by a known extension. Its name part, [\w-]+,
 * cannot pass a dot, so a match ends its run of [\w-] at that dot, and starts at the first word
 * boundary of the run (from where the search resumed).
 */
const EXTENSION_HERE = new RegExp(FACT_PATTERNS.file.source.slice(FACT_PATTERNS.file.source.indexOf('\\.')), 'y');
const isWordChar = (code: number): boolean => (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95;

function fileSpans(text: string): Spans {
  const spans: number[] = [];
  let end = 0;
  for (let dot = text.indexOf('.'); dot !== -1; dot = text.indexOf('.', dot + 1)) {
    EXTENSION_HERE.lastIndex = dot;
    if (EXTENSION_HERE.exec(text) === null) continue;
    let start = dot;
    while (start > end && (isWordChar(text.charCodeAt(start - 1)) || text.charCodeAt(start - 1) === 45)) start--;
    while (start < dot && isWordChar(text.charCodeAt(start - 1)) === isWordChar(text.charCodeAt(start))) start++;
    if (start === dot) continue;
    end = EXTENSION_HERE.lastIndex;
    spans.push(start, end);
    dot = end - 1;
  }
  return spans;
}

/**
 * A hash is a whole run of [\w.-] that is 7 to 40 lowercase hex digits with a letter and a digit.
 * Hex runs between word boundaries are found first (a \b is cheap to test, a lookbehind at every
 * position is not), then the rest of the rule is checked on each.
 */
const HEX_BETWEEN_BOUNDARIES = /\b[0-9a-f]{7,40}\b/g;

function hashSpans(text: string): Spans {
  const spans: number[] = [];
  for (const match of text.matchAll(HEX_BETWEEN_BOUNDARIES)) {
    const [start, end] = [match.index, match.index + match[0].length];
    if (isRunChar(text.charCodeAt(start - 1)) || isRunChar(text.charCodeAt(end))) continue;
    if (/[a-f]/.test(match[0]) && /[0-9]/.test(match[0])) spans.push(start, end);
  }
  return spans;
}

function spansOf(pattern: RegExp, text: string): Spans {
  const spans: number[] = [];
  pattern.lastIndex = 0;
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) spans.push(match.index, pattern.lastIndex);
  return spans;
}

/** A character each kind's matches hold: a text without it is not searched for that kind. */
const NEEDS: Readonly<Record<FactKind, RegExp>> = { path: /\//, file: /\./, snake: /_/, camel: /[A-Z]/, number: /\d/, hash: /\d/ };

/** Every match of one kind's pattern in `text`: what `text.matchAll(FACT_PATTERNS[kind])` finds. */
export function matchesOf(kind: FactKind, text: string): Spans {
  if (!NEEDS[kind].test(text)) return NO_SPANS;
  if (kind === 'path') return pathSpans(text);
  if (kind === 'file') return fileSpans(text);
  if (kind === 'hash') return hashSpans(text);
  return spansOf(FACT_PATTERNS[kind], text);
}

/** Whether [start, end) lies inside one of `spans` (in order, never overlapping): a binary search. */
function within(spans: Spans, start: number, end: number): boolean {
  let lo = 0;
  let hi = spans.length / 2 - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (spans[2 * mid]! <= start) lo = mid + 1;
    else hi = mid - 1;
  }
  return hi >= 0 && end <= spans[2 * hi + 1]!;
}

/** The facts in `text`, unique, in order of first appearance. */
export function extractFacts(text: string): string[] {
  // Most lines hold few facts or none: nothing is built for a kind that matches nothing.
  let found: Map<string, number> | undefined;
  // The matches kept, per kind: each kind's are in order and apart, so "inside an earlier, longer
  // match" is one binary search per earlier kind.
  const kept: Spans[] = [];
  let kinds = 0; // kinds with a fact
  for (const kind of KINDS) {
    const spans = matchesOf(kind, text);
    if (spans.length === 0) continue;
    const shortest = minLength(kind);
    const mine: number[] = [];
    for (let i = 0; i < spans.length; i += 2) {
      const start = spans[i]!;
      const end = spans[i + 1]!;
      if (end - start < shortest || kept.some((earlier) => within(earlier, start, end))) continue;
      mine.push(start, end);
      const fact = text.slice(start, end);
      found ??= new Map();
      if (!found.has(fact)) found.set(fact, start);
    }
    if (mine.length === 0) continue;
    kept.push(mine);
    kinds++;
  }
  if (found === undefined) return [];
  // One kind's facts are in order already.
  return kinds === 1 ? [...found.keys()] : [...found.entries()].sort((a, b) => a[1] - b[1]).map(([fact]) => fact);
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
