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
export type Spans = readonly number[];

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
 * Snake, camel, number and hash matches are whole runs of \w: their patterns begin and end at word
 * boundaries and hold only word characters in between, and \b (no `u` flag: \w is [A-Za-z0-9_]) sits
 * only at a run's edges, so a pattern either takes a whole run or nothing of it. One pass over a
 * text's runs finds all four kinds (extractFacts over every bundled message: 30 -> 20 ms; each
 * pattern's own pass cost about as much as that one).
 * - snake: the run holds a '_' and reads _* letter [A-Za-z0-9]* then (_ [A-Za-z0-9]+)+;
 * - camel: no '_', and lowercase letters then a capital, a capital then lowercase letters or digits
 *   then a capital, or two or more capitals then a lowercase letter;
 * - number: 3 or more digits and nothing else; the run after a following '.', when all digits, is its
 *   decimal part (the number then ends there);
 * - hash: 7 to 40 of [0-9a-f] with a letter and a digit, with no '.' or '-' on either side.
 */
type WordKind = 'snake' | 'camel' | 'number' | 'hash';
type WordSpans = Record<WordKind, number[]>;

const isDigit = (code: number): boolean => code >= 48 && code <= 57;
const isUpper = (code: number): boolean => code >= 65 && code <= 90;
const isLower = (code: number): boolean => code >= 97 && code <= 122;
const isHexLetter = (code: number): boolean => code >= 97 && code <= 102;

function isSnake(text: string, start: number, end: number): boolean {
  let i = start;
  while (i < end && text.charCodeAt(i) === 95) i++;
  if (i === end || !(isUpper(text.charCodeAt(i)) || isLower(text.charCodeAt(i)))) return false;
  while (i < end && text.charCodeAt(i) !== 95) i++;
  if (i === end) return false;
  // From the first '_' on: each '_' followed by a letter or digit.
  for (; i < end; i++) if (text.charCodeAt(i) === 95 && (i + 1 === end || text.charCodeAt(i + 1) === 95)) return false;
  return true;
}

function isCamel(text: string, start: number, end: number): boolean {
  const first = text.charCodeAt(start);
  let i = start + 1;
  if (isLower(first)) {
    while (i < end && isLower(text.charCodeAt(i))) i++;
    return i < end && isUpper(text.charCodeAt(i));
  }
  if (!isUpper(first)) return false;
  while (i < end && (isLower(text.charCodeAt(i)) || isDigit(text.charCodeAt(i)))) i++;
  if (i >= start + 2 && i < end && isUpper(text.charCodeAt(i))) return true;
  i = start + 1;
  while (i < end && isUpper(text.charCodeAt(i))) i++;
  return i >= start + 2 && i < end && isLower(text.charCodeAt(i));
}

/** The last text wordSpans read, and what it found: extractFacts asks for its four kinds in turn. */
let lastText: string | undefined;
let lastSpans: WordSpans | undefined;

/** Character classes of ASCII (the rest is none of them), looked up once per character. */
const WORD = 1;
const DIGIT = 2;
const HEX_LETTER = 4;
const UNDERSCORE = 8;
const UPPER = 16;
const LOWER_BEYOND_HEX = 32; // g to z
const CLASSES = Uint8Array.from({ length: 128 }, (_, code) =>
  isDigit(code)
    ? WORD | DIGIT
    : isHexLetter(code)
      ? WORD | HEX_LETTER
      : code === 95
        ? WORD | UNDERSCORE
        : isUpper(code)
          ? WORD | UPPER
          : isLower(code)
            ? WORD | LOWER_BEYOND_HEX
            : 0,
);
const classOf = (code: number): number => (code < 128 ? CLASSES[code]! : 0);

function wordSpans(text: string): WordSpans {
  if (text === lastText) return lastSpans!;
  const spans: WordSpans = { snake: [], camel: [], number: [], hash: [] };
  const length = text.length;
  let i = 0;
  while (i < length) {
    let charClass = classOf(text.charCodeAt(i));
    if (charClass === 0) {
      i++;
      continue;
    }
    const start = i;
    let seen = 0; // the classes the run holds
    do {
      seen |= charClass;
      charClass = ++i < length ? classOf(text.charCodeAt(i)) : 0;
    } while (charClass !== 0);
    const end = i;
    const size = end - start;
    if (seen & UNDERSCORE) {
      if (isSnake(text, start, end)) spans.snake.push(start, end);
    } else if (seen === (WORD | DIGIT)) {
      if (size >= 3) {
        // The decimal part: a run of digits right after a '.', ending where the run does.
        let stop = end;
        if (text.charCodeAt(end) === 46 && isDigit(text.charCodeAt(end + 1))) {
          let j = end + 1;
          while (j < length && isDigit(text.charCodeAt(j))) j++;
          if (j === length || !isWordChar(text.charCodeAt(j))) stop = i = j;
        }
        spans.number.push(start, stop);
      }
    } else {
      // Every camel shape holds a capital: most runs (lowercase words) need no closer look.
      if (seen & UPPER && isCamel(text, start, end)) spans.camel.push(start, end);
      if (seen === (WORD | DIGIT | HEX_LETTER) && size >= 7 && size <= 40 && !isRunChar(text.charCodeAt(start - 1)) && !isRunChar(text.charCodeAt(end))) spans.hash.push(start, end);
    }
  }
  [lastText, lastSpans] = [text, spans];
  return spans;
}

/** Every match of one kind's pattern in `text`: what `text.matchAll(FACT_PATTERNS[kind])` finds. */
export function matchesOf(kind: FactKind, text: string): Spans {
  if (kind === 'path') return pathSpans(text);
  if (kind === 'file') return fileSpans(text);
  return wordSpans(text)[kind];
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

/**
 * Where the facts of `text` are: [start, end) of each, flattened, in order of their starts. A match
 * shorter than its kind's minimum, or inside an earlier kind's kept match, is not one.
 */
export function factSpans(text: string): Spans {
  // The matches kept, per kind: each kind's are in order and apart, so "inside an earlier, longer
  // match" is one binary search per earlier kind.
  const kept: Spans[] = [];
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
    }
    if (mine.length > 0) kept.push(mine);
  }
  if (kept.length <= 1) return kept[0] ?? [];
  // The kinds' lists merged by start (kept matches never overlap): the next of the list whose next
  // match starts first, of at most six.
  const merged: number[] = [];
  const at = kept.map(() => 0);
  for (;;) {
    let pick = -1;
    for (let k = 0; k < kept.length; k++) if (at[k]! < kept[k]!.length && (pick === -1 || kept[k]![at[k]!]! < kept[pick]![at[pick]!]!)) pick = k;
    if (pick === -1) return merged;
    merged.push(kept[pick]![at[pick]!]!, kept[pick]![at[pick]! + 1]!);
    at[pick]! += 2;
  }
}

/** The texts of `spans` (factSpans of `text`, or a run of them), unique, in order. */
export function factsAt(text: string, spans: Spans, from = 0, to = spans.length): string[] {
  if (from === to) return [];
  const facts = new Set<string>();
  for (let i = from; i < to; i += 2) facts.add(text.slice(spans[i]!, spans[i + 1]!));
  return [...facts];
}

/**
 * Each line of `text` (as `text.split("\n")` gives them) with its facts, or undefined when it has
 * none: its share of `spans`, the factSpans of the whole text (no fact spans a line break).
 */
export function lineFacts(text: string, spans: Spans): ({ line: string; facts: string[] } | undefined)[] {
  const lines: ({ line: string; facts: string[] } | undefined)[] = [];
  let next = 0; // the first span not in an earlier line
  for (let start = 0; ; ) {
    const newline = text.indexOf('\n', start);
    const end = newline === -1 ? text.length : newline;
    const first = next;
    while (next < spans.length && spans[next]! < end) next += 2;
    lines.push(first === next ? undefined : { line: text.slice(start, end), facts: factsAt(text, spans, first, next) });
    if (newline === -1) return lines;
    start = newline + 1;
  }
}

/** The facts in `text`, unique, in order of first appearance. */
export function extractFacts(text: string): string[] {
  return factsAt(text, factSpans(text));
}

/** factSpans of each owner's text, found once per thread. */
const ownedSpans = new WeakMap<object, { readonly text: string; readonly spans: Spans }>();

/**
 * factSpans of `text`, remembered for `owner`: the object whose text it is and always will be (a
 * frozen message for its content, a tool call for its arguments). Reference recall reads every
 * message's content and the mock summarizer reads the lines of those it summarizes: both take the
 * spans from here, so a message is searched once however many strategies summarize it.
 */
export function ownedFactSpans(owner: object, text: string): Spans {
  const known = ownedSpans.get(owner);
  if (known?.text === text) return known.spans;
  const spans = factSpans(text);
  // Another text of the same owner (not a use this module knows of) is searched, not remembered.
  if (known === undefined) ownedSpans.set(owner, { text, spans });
  return spans;
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
