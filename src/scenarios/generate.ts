/**
 * A seeded generator of long synthetic agent tasks: `generateScenario(options)` builds a ctxbench
 * scenario file of `steps` assistant turns that fix a made-up bug in a made-up repository, with a
 * realistic tool mix (read_file, grep, bash, write_file, edit_file, parallel calls, empty results,
 * occasional unicode), a heavy-tailed output-size distribution, user follow-ups, and planted facts with
 * probes that ask for them later.
 *
 * Pure and deterministic: the same options give the same object (and so the same file, byte for byte).
 * Randomness comes only from mulberry32 streams seeded from `seed`; never Math.random.
 *
 * Planted facts are distinctive by construction, so a probe's answer is in the history exactly where it
 * was planted (the tool output at the plant step, and maybe the next assistant turn), nowhere else:
 * - numbers are 6 or 7 digits; filler text never holds a run of 6 digits (line numbers, sizes,
 *   constants stay below 100,000; filler hashes are drawn without 6-digit runs);
 * - hashes and request ids hold a 6-digit run, which filler hashes never do;
 * - paths use words (FACT_WORDS) that filler text never uses.
 * Every answer is also one `extractFacts` finds (a number, a hash, an identifier or a path).
 */
import { CtxbenchError } from '../core/errors.js';
import type { ScenarioFile, ScenarioFileMessage } from './schema.js';

export type BashStyle = 'openhands' | 'returncode';

export interface GenerateOptions {
  /** Assistant turns (agent steps), 20 to 2,000. */
  readonly steps?: number;
  /** Any whole number from 0 to 2^32 - 1. */
  readonly seed?: number;
  /** Median size of a read_file / grep / bash output, in (o200k) tokens. */
  readonly outputTokens?: number;
  /** Share of outputs in the heavy tail (0 to 0.5): 4-16x the median; one in six of those is huge (30-100x). */
  readonly heavyTailShare?: number;
  /** No output is larger than this many tokens. */
  readonly maxOutputTokens?: number;
  /** Facts planted per 100 steps, each with one probe. */
  readonly factDensity?: number;
  /** Share of tool-calling steps that make 2-4 parallel calls. */
  readonly parallelShare?: number;
  /** Share of steps followed by a user follow-up (half of them after a status turn without calls). */
  readonly followUpShare?: number;
  readonly model?: string;
  /** Written to model.contextWindow; omitted: the model registry's window applies. */
  readonly contextWindow?: number;
  /** How bash outputs carry the exit code; default: picked by the seed. */
  readonly bashStyle?: BashStyle;
}

export interface ResolvedGenerateOptions {
  readonly steps: number;
  readonly seed: number;
  readonly outputTokens: number;
  readonly heavyTailShare: number;
  readonly maxOutputTokens: number;
  readonly factDensity: number;
  readonly parallelShare: number;
  readonly followUpShare: number;
  readonly model: string;
  readonly contextWindow: number | undefined;
  readonly bashStyle: BashStyle | undefined;
}

export const GENERATE_DEFAULTS = {
  steps: 200,
  seed: 1,
  outputTokens: 300,
  heavyTailShare: 0.1,
  maxOutputTokens: 12_000,
  factDensity: 5,
  parallelShare: 0.15,
  followUpShare: 0.03,
  model: 'gpt-4o',
} as const;

export type NumericOption = 'steps' | 'seed' | 'outputTokens' | 'heavyTailShare' | 'maxOutputTokens' | 'factDensity' | 'parallelShare' | 'followUpShare' | 'contextWindow';

export interface OptionLimit {
  readonly min: number;
  readonly max: number;
  readonly integer: boolean;
}

export const GENERATE_LIMITS: Readonly<Record<NumericOption, OptionLimit>> = {
  steps: { min: 20, max: 2000, integer: true },
  seed: { min: 0, max: 2 ** 32 - 1, integer: true },
  outputTokens: { min: 10, max: 50_000, integer: true },
  heavyTailShare: { min: 0, max: 0.5, integer: false },
  maxOutputTokens: { min: 64, max: 200_000, integer: true },
  factDensity: { min: 0, max: 50, integer: false },
  parallelShare: { min: 0, max: 1, integer: false },
  followUpShare: { min: 0, max: 0.5, integer: false },
  contextWindow: { min: 256, max: 100_000_000, integer: true },
};

/** "20 to 2000", "a fraction in [0, 1]", "a number in [0, 50]". */
export function describeLimit(limit: OptionLimit): string {
  if (limit.integer) return `${limit.min} to ${limit.max}`;
  return `${limit.min === 0 && limit.max === 1 ? 'a fraction' : 'a number'} in [${limit.min}, ${limit.max}]`;
}

/**
 * Throws a one-line OPTION_INVALID error naming `label` (the option, or the CLI flag) and `shown` (the
 * value as given) when `value` is out of range.
 */
export function checkOption(name: NumericOption, value: number, label: string = name, shown: string = String(value)): number {
  const limit = GENERATE_LIMITS[name];
  const ok = Number.isFinite(value) && value >= limit.min && value <= limit.max && (!limit.integer || Number.isInteger(value));
  if (!ok) throw new CtxbenchError('OPTION_INVALID', `${label} ${shown}: expected ${describeLimit(limit)}`);
  return value;
}

export function resolveGenerateOptions(options: GenerateOptions = {}): ResolvedGenerateOptions {
  const d = GENERATE_DEFAULTS;
  const resolved: ResolvedGenerateOptions = {
    steps: checkOption('steps', options.steps ?? d.steps),
    seed: checkOption('seed', options.seed ?? d.seed),
    outputTokens: checkOption('outputTokens', options.outputTokens ?? d.outputTokens),
    heavyTailShare: checkOption('heavyTailShare', options.heavyTailShare ?? d.heavyTailShare),
    maxOutputTokens: checkOption('maxOutputTokens', options.maxOutputTokens ?? d.maxOutputTokens),
    factDensity: checkOption('factDensity', options.factDensity ?? d.factDensity),
    parallelShare: checkOption('parallelShare', options.parallelShare ?? d.parallelShare),
    followUpShare: checkOption('followUpShare', options.followUpShare ?? d.followUpShare),
    model: options.model ?? d.model,
    contextWindow: options.contextWindow === undefined ? undefined : checkOption('contextWindow', options.contextWindow),
    bashStyle: options.bashStyle,
  };
  if (resolved.model.trim() === '') throw new CtxbenchError('OPTION_INVALID', 'model: expected a model name');
  if (resolved.bashStyle !== undefined && resolved.bashStyle !== 'openhands' && resolved.bashStyle !== 'returncode') {
    throw new CtxbenchError('OPTION_INVALID', `bashStyle ${String(resolved.bashStyle)}: expected openhands or returncode`);
  }
  if (resolved.outputTokens > resolved.maxOutputTokens) {
    throw new CtxbenchError('OPTION_INVALID', `outputTokens ${resolved.outputTokens}: above maxOutputTokens ${resolved.maxOutputTokens}`);
  }
  return resolved;
}

/**
 * The scenario id encodes the knobs: `synthetic-s<steps>-seed<seed>`, then one short tag per option
 * that differs from its default (o output tokens, t heavy tail, x max output, f fact density,
 * p parallel, u follow-ups, m model, w window, b bash style).
 */
export function syntheticId(options: GenerateOptions = {}): string {
  const o = resolveGenerateOptions(options);
  const d = GENERATE_DEFAULTS;
  const parts = [`synthetic-s${o.steps}-seed${o.seed}`];
  if (o.outputTokens !== d.outputTokens) parts.push(`o${o.outputTokens}`);
  if (o.heavyTailShare !== d.heavyTailShare) parts.push(`t${o.heavyTailShare}`);
  if (o.maxOutputTokens !== d.maxOutputTokens) parts.push(`x${o.maxOutputTokens}`);
  if (o.factDensity !== d.factDensity) parts.push(`f${o.factDensity}`);
  if (o.parallelShare !== d.parallelShare) parts.push(`p${o.parallelShare}`);
  if (o.followUpShare !== d.followUpShare) parts.push(`u${o.followUpShare}`);
  if (o.model !== d.model) parts.push(`m${o.model.replace(/[^A-Za-z0-9._:@+-]+/g, '_')}`);
  if (o.contextWindow !== undefined) parts.push(`w${o.contextWindow}`);
  if (o.bashStyle !== undefined) parts.push(`b${o.bashStyle}`);
  return parts.join('-');
}

/** The `bench scenarios gen` flags that reproduce these options (defaults left out). */
export function generateCommand(options: GenerateOptions = {}): string {
  const o = resolveGenerateOptions(options);
  const d = GENERATE_DEFAULTS;
  const flags = [`--steps ${o.steps}`, `--seed ${o.seed}`];
  if (o.outputTokens !== d.outputTokens) flags.push(`--output-tokens ${o.outputTokens}`);
  if (o.heavyTailShare !== d.heavyTailShare) flags.push(`--heavy-tail ${o.heavyTailShare}`);
  if (o.maxOutputTokens !== d.maxOutputTokens) flags.push(`--max-output-tokens ${o.maxOutputTokens}`);
  if (o.factDensity !== d.factDensity) flags.push(`--fact-density ${o.factDensity}`);
  if (o.parallelShare !== d.parallelShare) flags.push(`--parallel ${o.parallelShare}`);
  if (o.followUpShare !== d.followUpShare) flags.push(`--follow-ups ${o.followUpShare}`);
  if (o.model !== d.model) flags.push(`--model ${o.model}`);
  if (o.contextWindow !== undefined) flags.push(`--window ${o.contextWindow}`);
  if (o.bashStyle !== undefined) flags.push(`--bash-style ${o.bashStyle}`);
  return `bench scenarios gen ${flags.join(' ')}`;
}

/**
 * The bundled suite in scenarios/synthetic/ (`bench scenarios gen --suite -o scenarios/synthetic/`):
 * short to long tasks with different output sizes, tails and fact densities, small enough to ship.
 */
export const SYNTHETIC_SUITE: readonly GenerateOptions[] = [
  { steps: 60, seed: 1, outputTokens: 400, factDensity: 10 },
  { steps: 120, seed: 6, outputTokens: 150, factDensity: 8, parallelShare: 0.25 },
  { steps: 120, seed: 2, outputTokens: 100, heavyTailShare: 0.2, factDensity: 15, followUpShare: 0.06 },
  { steps: 250, seed: 3, outputTokens: 80, factDensity: 6, followUpShare: 0.05 },
  { steps: 40, seed: 7, outputTokens: 600, maxOutputTokens: 6000, factDensity: 20, model: 'claude-sonnet-4' },
];

// ---------------------------------------------------------------------------------------------------
// Randomness

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

class Rng {
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

const HEX = '0123456789abcdef';
const HEX_LETTERS = 'abcdef';
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

// ---------------------------------------------------------------------------------------------------
// Vocabulary. FACT_WORDS never appear in filler text (a test checks the lists are disjoint).

const PROJECTS = ['ledgerline', 'quillmark', 'tidepool', 'brightforge', 'copperleaf', 'paperkite', 'saltmarsh', 'emberflow', 'fernhollow', 'riverbend'];
const MODULES = [
  'billing', 'invoices', 'ledger', 'cache', 'scheduler', 'auth', 'sessions', 'retry', 'http_client', 'parser',
  'serializer', 'metrics', 'queue', 'worker', 'storage', 'settings', 'events', 'webhooks', 'accounts', 'reports',
  'exporter', 'pagination', 'rate_limit', 'audit', 'notifications', 'search', 'sync', 'migrations', 'utils', 'validators',
];
const SUBPACKAGES = ['core', 'api', 'services', 'models', 'utils', 'workers', 'adapters'];
const VERBS = ['load', 'parse', 'build', 'resolve', 'apply', 'compute', 'flush', 'fetch', 'merge', 'normalize', 'validate', 'render', 'dispatch', 'schedule', 'encode', 'decode', 'collect', 'register', 'emit', 'refresh'];
const NOUNS = ['config', 'batch', 'entry', 'header', 'payload', 'session', 'token', 'record', 'window', 'snapshot', 'cursor', 'page', 'event', 'invoice', 'schema', 'limit', 'policy', 'result', 'account', 'message'];
const CLASS_SUFFIXES = ['Manager', 'Client', 'Store', 'Builder', 'Parser', 'Policy', 'Worker', 'Registry', 'Handler', 'Adapter'];
const ERRORS = ['ValueError', 'KeyError', 'TypeError', 'RuntimeError', 'LookupError'];
const TS_ERRORS = ['Error', 'TypeError', 'RangeError'];
const VARS = ['items', 'result', 'payload', 'entry', 'batch', 'key', 'value', 'cursor', 'session', 'record', 'options', 'limit', 'offset', 'token', 'headers', 'retries', 'deadline', 'chunk', 'buffer', 'state'];
const PHRASES = [
  'skip entries that were already flushed', 'keep the original ordering', 'the cursor may be stale here', 'avoid a second round trip',
  'normalize before comparing', 'fall back to the default policy', 'empty batches are valid', 'retry once on a transient error',
  'this must stay backwards compatible', 'guard against a missing header', 'cache the parsed schema', 'release the lock before returning',
  'only the first page is cached', 'see the migration notes', 'payload may be None for deletes', 'do not log the token',
];
const UNICODE_PHRASES = ['naïve datetime → aware datetime', 'café menu — price list', 'résumé parser (Ünïcödé safe)', '日本語のテキストを処理する', 'emoji payload 🚀 ✓', 'Grüße aus Zürich', 'Ωmega limit ≤ threshold', 'naïve façade — déjà vu'];
const CONFIG_KEYS = ['max_connections', 'log_level', 'pool_size', 'timeout_seconds', 'enable_tracing', 'region', 'batch_size', 'cache_ttl', 'worker_count', 'strict_mode', 'default_currency', 'page_size', 'retry_attempts', 'feature_flags', 'queue_name', 'sample_rate'];
const CONFIG_SECTIONS = ['server', 'database', 'cache', 'workers', 'logging', 'billing', 'limits', 'features'];
const COMMIT_MESSAGES = [
  'Fix flaky pagination test', 'Bump dependencies', 'Refactor cache invalidation', 'Add metrics for queue depth', 'Handle empty payloads in parser',
  'Document retry policy', 'Split settings loader', 'Speed up ledger export', 'Tidy imports', 'Guard against stale cursors', 'Add audit events for logins',
  'Remove dead code in scheduler', 'Make webhook signatures constant-time', 'Rename session helpers', 'Clamp page size', 'Log slow queries',
];
const LOG_PATHS = ['/api/v1/invoices', '/api/v1/accounts', '/api/v1/sessions', '/healthz', '/api/v1/reports', '/api/v1/webhooks', '/api/v1/search'];
const PACKAGES = ['requests', 'pydantic', 'sqlalchemy', 'httpx', 'attrs', 'click', 'rich', 'orjson', 'tenacity', 'structlog'];
export const FACT_WORDS = ['zephyr', 'quokka', 'marlin', 'obsidian', 'juniper', 'tamarind', 'halcyon', 'vesper', 'kestrel', 'lichen', 'saffron', 'tanager', 'wicket', 'nimbus', 'bramble', 'sorrel'];
const FACT_MEASURES = ['budget', 'ceiling', 'window', 'timeout', 'interval', 'quota', 'threshold', 'horizon'];
const FACT_UNITS = ['ms', 'us', 'bytes', 'kb', 'count', 'ticks'];

/** Every word filler text draws from (for the disjointness test). */
export const FILLER_WORDS: readonly string[] = [
  ...PROJECTS, ...MODULES, ...SUBPACKAGES, ...VERBS, ...NOUNS, ...VARS, ...CONFIG_KEYS, ...CONFIG_SECTIONS, ...PACKAGES,
  ...PHRASES.flatMap((p) => p.split(' ')), ...COMMIT_MESSAGES.flatMap((p) => p.split(' ')),
];

// ---------------------------------------------------------------------------------------------------
// Sizes: characters per o200k_base token of each kind of generated output, measured on generated
// scenarios (listings and logs are denser than code); a test checks the median lands near the target.

const CPT = { code: 3.8, config: 2.7, log: 2.9, commits: 3.0, listing: 2.2, pip: 2.5, tests: 4.3, diff: 3.9, paths: 3.3, tsc: 3.5 } as const;

// ---------------------------------------------------------------------------------------------------
// The made-up repository.

type Lang = 'python' | 'typescript';

interface World {
  readonly lang: Lang;
  readonly project: string;
  readonly root: string;
  readonly files: readonly string[];
  readonly tests: readonly string[];
  readonly functions: readonly string[];
  readonly classes: readonly string[];
  readonly bashStyle: BashStyle;
  /** The bug the task is about. */
  readonly target: { readonly file: string; readonly fn: string; readonly test: string; readonly noun: string };
}

const sentence = (phrase: string): string => `${phrase[0]!.toUpperCase()}${phrase.slice(1)}.`;
const snake = (...words: string[]): string => words.join('_');
const camel = (...words: string[]): string => words.map((w, i) => (i === 0 ? w : w[0]!.toUpperCase() + w.slice(1))).join('');
const pascal = (...words: string[]): string => words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');

function buildWorld(rng: Rng, bashStyle: BashStyle | undefined): World {
  const lang: Lang = rng.chance(0.6) ? 'python' : 'typescript';
  const project = rng.pick(PROJECTS);
  const ext = lang === 'python' ? 'py' : 'ts';
  const base = lang === 'python' ? `src/${project}` : 'src';
  const modules = rng.sample(MODULES, rng.int(18, 26));
  const files = modules.map((m) => {
    const name = lang === 'python' ? m : m.replace(/_(\w)/g, (_, c: string) => c.toUpperCase());
    return `${base}/${rng.pick(SUBPACKAGES)}/${name}.${ext}`;
  });
  const tests = modules.map((m) => (lang === 'python' ? `tests/test_${m}.py` : `test/${m.replace(/_(\w)/g, (_, c: string) => c.toUpperCase())}.test.ts`));
  const fnSet = new Set<string>();
  while (fnSet.size < 40) {
    const [v, n] = [rng.pick(VERBS), rng.pick(NOUNS)];
    fnSet.add(lang === 'python' ? snake(v, n) : camel(v, n));
  }
  const functions = [...fnSet];
  const classes = rng.sample(NOUNS, 10).map((n) => pascal(n) + rng.pick(CLASS_SUFFIXES));
  const t = rng.int(0, files.length - 1);
  return {
    lang,
    project,
    root: `/workspace/${project}`,
    files,
    tests,
    functions,
    classes,
    bashStyle: bashStyle ?? (rng.chance(0.5) ? 'openhands' : 'returncode'),
    target: { file: files[t]!, fn: functions[0]!, test: tests[t]!, noun: rng.pick(NOUNS) },
  };
}

// ---------------------------------------------------------------------------------------------------
// Text generators. Numbers in filler stay below 100,000 and never touch another digit.

class Text {
  constructor(
    readonly rng: Rng,
    readonly world: World,
  ) {}

  phrase(): string {
    return this.rng.chance(0.03) ? this.rng.pick(UNICODE_PHRASES) : this.rng.pick(PHRASES);
  }
  fn(): string {
    return this.rng.pick(this.world.functions);
  }
  file(): string {
    return this.rng.pick(this.world.files);
  }
  test(): string {
    return this.rng.pick(this.world.tests);
  }
  cls(): string {
    return this.rng.pick(this.world.classes);
  }
  v(): string {
    return this.world.lang === 'python' ? this.rng.pick(VARS) : camel(...this.rng.pick(VARS).split('_'));
  }

  /** One line of code at a random indentation, in the world's language. */
  codeLine(): string {
    return this.world.lang === 'python' ? this.pyLine() : this.tsLine();
  }

  private pyLine(): string {
    const r = this.rng;
    const ind = '    '.repeat(r.int(0, 2));
    switch (r.int(0, 13)) {
      case 0:
        return `def ${this.fn()}(${this.v()}, ${this.v()}=None):`;
      case 1:
        return `class ${this.cls()}(${r.pick(['object', 'BaseModel', 'Protocol', this.cls()])}):`;
      case 2:
        return `${ind}${this.v()} = ${this.fn()}(${this.v()}, ${r.int(0, 4096)})`;
      case 3:
        return `${ind}if ${this.v()} is None:`;
      case 4:
        return `${ind}    return ${r.pick(['None', '[]', '{}', 'False', this.v()])}`;
      case 5:
        return `${ind}for ${r.pick(['item', 'row', 'key', 'entry'])} in ${this.v()}:`;
      case 6:
        return `${ind}# ${this.phrase()}`;
      case 7:
        return `${ind}raise ${r.pick(ERRORS)}(f"${this.phrase()}: {${this.v()}!r}")`;
      case 8:
        return `${ind}logger.debug("${this.phrase()} %s", ${this.v()})`;
      case 9:
        return `${ind}self.${this.v()} = ${this.v()}`;
      case 10:
        return `from ${this.world.project}.${r.pick(SUBPACKAGES)}.${r.pick(MODULES)} import ${this.cls()}, ${this.fn()}`;
      case 11:
        return `${ind}"""${sentence(this.phrase())}"""`;
      case 12:
        return '';
      default:
        return `${ind}return ${this.fn()}(${this.v()}, ${this.v()}=${this.v()})`;
    }
  }

  private tsLine(): string {
    const r = this.rng;
    const ind = '  '.repeat(r.int(0, 2));
    switch (r.int(0, 13)) {
      case 0:
        return `export function ${this.fn()}(${this.v()}: ${r.pick(['string', 'number', this.cls()])}, ${this.v()}?: Options): ${this.cls()} {`;
      case 1:
        return `export class ${this.cls()} implements ${this.cls()} {`;
      case 2:
        return `${ind}const ${this.v()} = ${this.fn()}(${this.v()}, ${r.int(0, 4096)});`;
      case 3:
        return `${ind}if (${this.v()} === undefined) {`;
      case 4:
        return `${ind}  return ${r.pick(['undefined', '[]', '{}', 'false', this.v()])};`;
      case 5:
        return `${ind}for (const ${r.pick(['item', 'row', 'key', 'entry'])} of ${this.v()}) {`;
      case 6:
        return `${ind}// ${this.phrase()}`;
      case 7:
        return `${ind}throw new ${r.pick(TS_ERRORS)}(\`${this.phrase()}: \${${this.v()}}\`);`;
      case 8:
        return `${ind}logger.debug('${this.phrase()}', { ${this.v()} });`;
      case 9:
        return `${ind}this.${this.v()} = ${this.v()};`;
      case 10:
        return `import { ${this.cls()}, ${this.fn()} } from '../${r.pick(SUBPACKAGES)}/${camel(...r.pick(MODULES).split('_'))}.js';`;
      case 11:
        return `${ind}}`;
      case 12:
        return '';
      default:
        return `${ind}return await ${this.fn()}(${this.v()}, { ${this.v()} });`;
    }
  }

  /** `cat -n` style numbered lines. */
  numbered(lines: readonly string[], start: number): string {
    return lines.map((line, i) => `${String(start + i).padStart(6)}\t${line}`).join('\n');
  }

  /** About `chars` characters of numbered code lines from line `start` (numbering included). */
  numberedCode(chars: number, start: number, min = 1): string[] {
    let n = start;
    return fill(chars, () => `${String(n++).padStart(6)}\t${this.codeLine()}`, min);
  }

  timestamp(): string {
    const r = this.rng;
    const p = (n: number, w = 2): string => String(n).padStart(w, '0');
    return `2024-${p(r.int(1, 12))}-${p(r.int(1, 28))} ${p(r.int(0, 23))}:${p(r.int(0, 59))}:${p(r.int(0, 59))},${p(r.int(0, 999), 3)}`;
  }

  logLine(): string {
    const r = this.rng;
    const level = r.pick(['INFO', 'INFO', 'INFO', 'DEBUG', 'WARNING']);
    const status = r.pick([200, 200, 200, 201, 204, 304, 404]);
    return `${this.timestamp()} ${level} ${this.world.project}.${r.pick(MODULES)} method=${r.pick(['GET', 'POST', 'PUT'])} path=${r.pick(LOG_PATHS)} status=${status} duration_ms=${r.int(1, 2500)} request_id=req_${r.hex(12)}`;
  }
}

/** Lines from `make` until about `chars` characters (at least `min` lines). */
function fill(chars: number, make: () => string, min = 1): string[] {
  const out: string[] = [];
  let size = 0;
  while (size < chars || out.length < min) {
    const line = make();
    out.push(line);
    size += line.length + 1;
  }
  return out;
}

/** Inserts `line` at a random position of `lines` (in place) and returns the position. */
function insertAt(rng: Rng, lines: string[], line: string, from = 0): number {
  const at = rng.int(Math.min(from, lines.length), lines.length);
  lines.splice(at, 0, line);
  return at;
}

// ---------------------------------------------------------------------------------------------------
// Planted facts.

type FactKind = 'config' | 'commit' | 'path' | 'seed' | 'request';
const FACT_KINDS: readonly FactKind[] = ['config', 'commit', 'path', 'seed', 'request'];

interface Fact {
  readonly kind: FactKind;
  readonly answer: string;
  readonly question: string;
  /** What the assistant says about it, when it mentions it right after the plant. */
  readonly mention: string;
  /** The tool call that reveals it (its output holds `answer`). */
  readonly call: (text: Text, tokens: number) => ToolCallDraft;
}

interface ToolCallDraft {
  readonly name: string;
  readonly args: Record<string, unknown>;
  readonly output: string;
  /** A clause for the thought that precedes the call ("let me look at x"). */
  readonly intent: string;
}

/** A fact whose answer neither contains nor is contained in an earlier one, and whose question is new. */
function makeFact(rng: Rng, world: World, used: { answers: Set<string>; questions: Set<string> }): Fact {
  for (;;) {
    const fact = draftFact(rng, world);
    const clash = used.questions.has(fact.question) || [...used.answers].some((u) => u.includes(fact.answer) || fact.answer.includes(u));
    if (!clash) {
      used.answers.add(fact.answer);
      used.questions.add(fact.question);
      return fact;
    }
  }
}

function draftFact(rng: Rng, world: World): Fact {
  const kind = rng.pick(FACT_KINDS);
  const word = rng.pick(FACT_WORDS);
  const ext = world.lang === 'python' ? 'py' : 'ts';
  switch (kind) {
    case 'config': {
      const key = snake(word, rng.pick(FACT_MEASURES), rng.pick(FACT_UNITS));
      const value = String(rng.int(100_000, 999_999));
      const file = `config/${rng.pick(['service', 'production', 'staging', 'defaults'])}.toml`;
      return {
        kind,
        answer: value,
        question: `What value is \`${key}\` set to in ${file}?`,
        mention: `Note that \`${key}\` is set to ${value} in ${file}.`,
        call: (text, tokens) => ({
          name: 'read_file',
          args: { path: file },
          intent: `check the settings in ${file}`,
          output: text.numbered(configLines(text, tokens * CPT.config, `${key} = ${value}`), 1),
        }),
      };
    }
    case 'commit': {
      const hash = rng.factHex(12);
      const subject = `${rng.pick(['Switch', 'Move', 'Pin', 'Rework'])} ${word} ${rng.pick(['snapshots', 'shards', 'retries', 'exports'])} to ${rng.pick(['incremental', 'batched', 'lazy', 'strict'])} mode`;
      return {
        kind,
        answer: hash,
        question: `What is the short hash of the commit "${subject}"?`,
        mention: `The commit "${subject}" is ${hash}.`,
        call: (text, tokens) => {
          const lines = fill(tokens * CPT.commits, () => `${text.rng.hex(12)} ${text.rng.pick(COMMIT_MESSAGES)}`, 3);
          insertAt(text.rng, lines, `${hash} ${subject}`);
          return bashCall(text, `git log --oneline -n ${lines.length}`, lines.join('\n'), 0, 'look at the recent history');
        },
      };
    }
    case 'path': {
      const fn = world.lang === 'python' ? snake(rng.pick(['rebalance', 'reconcile', 'rehydrate', 'quarantine']), word, rng.pick(['shards', 'ledgers', 'buckets'])) : camel(rng.pick(['rebalance', 'reconcile', 'rehydrate', 'quarantine']), word, rng.pick(['shards', 'ledgers', 'buckets']));
      const file = `${world.lang === 'python' ? `src/${world.project}` : 'src'}/legacy/${word}/${rng.pick(FACT_WORDS)}_${rng.pick(['map', 'store', 'plan'])}_${rng.int(1000, 9999)}.${ext}`;
      const def = world.lang === 'python' ? `def ${fn}(batch, limit=None):` : `export function ${fn}(batch: Batch, limit?: number): Plan {`;
      return {
        kind,
        answer: file,
        question: `Which file defines \`${fn}\`?`,
        mention: `\`${fn}\` is defined in ${file}.`,
        call: (text, tokens) => {
          const lines = fill(tokens * CPT.code, () => `${text.file()}:${text.rng.int(1, 900)}:    ${fn}(${text.v()}, ${text.v()})`, 2);
          insertAt(text.rng, lines, `${file}:${text.rng.int(10, 900)}:${def}`);
          return { name: 'grep', args: { pattern: fn, path: '.' }, intent: `find where \`${fn}\` comes from`, output: lines.join('\n') };
        },
      };
    }
    case 'seed': {
      const seed = String(rng.int(1_000_000, 9_999_999));
      const test = rng.pick(world.tests);
      return {
        kind,
        answer: seed,
        question: `Which --randomly-seed value did the flaky run of ${test} print?`,
        mention: `The flaky run of ${test} used --randomly-seed=${seed}; I'll reuse it to reproduce.`,
        call: (text, tokens) => {
          const out = testOutput(text, tokens * CPT.tests, test, true, `Using --randomly-seed=${seed}`);
          return bashCall(text, world.lang === 'python' ? `python -m pytest ${test} -p randomly -q` : `npx vitest run ${test} --sequence.shuffle`, out, 1, `rerun ${test} with shuffling to catch the flaky failure`);
        },
      };
    }
    case 'request': {
      const id = `req_${rng.factHex(12)}`;
      const log = `logs/${rng.pick(['app', 'gateway', 'worker'])}.log`;
      return {
        kind,
        answer: id,
        question: `What request_id did the 503 error from the ${word} upstream in ${log} carry?`,
        mention: `The 503 from the ${word} upstream has request_id ${id}.`,
        call: (text, tokens) => {
          const lines = fill(tokens * CPT.log, () => text.logLine(), 3);
          insertAt(text.rng, lines, `${text.timestamp()} ERROR ${world.project}.gateway method=POST path=/api/v1/invoices status=503 upstream=${word} duration_ms=${text.rng.int(3000, 9999)} request_id=${id}`);
          return bashCall(text, `tail -n ${lines.length} ${log}`, lines.join('\n'), 0, `check ${log} for errors`);
        },
      };
    }
  }
}

function configLines(text: Text, chars: number, planted?: string): string[] {
  const r = text.rng;
  const lines: string[] = [];
  let size = 0;
  while (size < chars || lines.length < 4) {
    const line =
      lines.length === 0 || r.chance(0.15)
        ? `${lines.length === 0 ? '' : '\n'}[${r.pick(CONFIG_SECTIONS)}]`
        : `${r.pick(CONFIG_KEYS)} = ${r.pick([String(r.int(1, 4096)), `"${r.pick(MODULES)}"`, 'true', 'false', `${r.int(0, 99)}.${r.int(0, 9)}`])}`;
    lines.push(...line.split('\n'));
    size += line.length + 8; // numbered: "     7\t" before each line
  }
  if (planted) insertAt(r, lines, planted, 1);
  return lines;
}

// ---------------------------------------------------------------------------------------------------
// Tool calls.

function bashCall(text: Text, command: string, output: string, exitCode: number, intent: string): ToolCallDraft {
  const body = output.length > 0 ? `${output}\n` : '';
  const content = text.world.bashStyle === 'openhands' ? `${body}[Command finished with exit code ${exitCode}]` : `<returncode>${exitCode}</returncode>\n<output>\n${body}</output>`;
  return { name: 'bash', args: { command: `cd ${text.world.root} && ${command}` }, output: content, intent };
}

function testOutput(text: Text, chars: number, test: string, failing: boolean, header?: string): string {
  const r = text.rng;
  const python = text.world.lang === 'python';
  const [passed, failed] = [r.int(5, 400), failing ? r.int(1, 4) : 0];
  const lines: string[] = [];
  if (python) {
    lines.push('============================= test session starts ==============================', 'platform linux -- Python 3.11.9, pytest-8.2.1, pluggy-1.5.0');
    if (header) lines.push(header);
    lines.push(`rootdir: ${text.world.root}`, `collected ${passed + failed} items`, '');
  } else if (header) lines.push(header, '');
  const body = fill(chars - lines.join('\n').length - 90, () =>
    python
      ? r.chance(0.5)
        ? `${test}::test_${text.fn().replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}_${r.pick(NOUNS)} ${r.pick(['PASSED', 'PASSED', 'PASSED', failing ? 'FAILED' : 'PASSED'])}`
        : `    ${text.codeLine().trim() || 'assert result is not None'}`
      : r.chance(0.6)
        ? ` ${r.pick(['✓', '✓', '✓', failing ? '×' : '✓'])} ${test} > ${text.fn()} > ${text.phrase()} ${r.int(1, 900)}ms`
        : `    ${text.codeLine().trim() || 'expect(result).toBeDefined();'}`,
  );
  lines.push(...body);
  lines.push(
    python
      ? `========================= ${failed > 0 ? `${failed} failed, ` : ''}${passed} passed in ${r.int(0, 59)}.${r.int(10, 99)}s =========================`
      : ` Tests  ${failed > 0 ? `${failed} failed | ` : ''}${passed} passed (${passed + failed})`,
  );
  return lines.join('\n');
}

/**
 * A filler tool call of about `tokens` tokens of output (`empty` gives an empty result); `readOnly`
 * (parallel steps) leaves out edits and writes.
 */
function fillerCall(text: Text, tokens: number, empty: boolean, readOnly: boolean): ToolCallDraft {
  const r = text.rng;
  const w = text.world;
  const roll = r.unit() * (readOnly ? 0.85 : 1);
  if (roll < 0.3) {
    const file = text.file();
    if (empty) return { name: 'read_file', args: { path: file.replace(/[^/]+$/, w.lang === 'python' ? '__init__.py' : 'index.ts') }, output: '', intent: 'check the package entry point' };
    const start = r.chance(0.5) ? 1 : r.int(2, 400);
    const lines = text.numberedCode(tokens * CPT.code, start);
    const args = start === 1 ? { path: file } : { path: file, view_range: [start, start + lines.length - 1] };
    return { name: 'read_file', args, output: lines.join('\n'), intent: r.pick([`look at ${file}`, `read how ${file} handles this`, `open ${file}`]) };
  }
  if (roll < 0.5) {
    const pattern = r.chance(0.7) ? text.fn() : r.pick(VARS);
    if (empty) return { name: 'grep', args: { pattern: `${pattern}(`, path: 'tests/' }, output: '', intent: `check whether the tests call \`${pattern}\`` };
    const lines = fill(tokens * CPT.code, () => `${r.chance(0.8) ? text.file() : text.test()}:${r.int(1, 1200)}:${text.codeLine()}`);
    return { name: 'grep', args: { pattern, path: '.' }, output: lines.join('\n'), intent: `find every use of \`${pattern}\`` };
  }
  if (roll < 0.85) return fillerBash(text, tokens, empty);
  if (roll < 0.95) {
    const file = text.file();
    const old = fill(r.int(40, 200), () => text.codeLine()).join('\n');
    const fresh = fill(r.int(40, 400), () => text.codeLine()).join('\n');
    const start = r.int(1, 600);
    const snippet = text.numberedCode(Math.min(tokens * CPT.code, 1600), start, 4);
    return {
      name: 'edit_file',
      args: { path: file, old_str: old, new_str: fresh },
      output: `The file ${file} has been edited. Here's the result of running \`cat -n\` on a snippet of ${file}:\n${snippet.join('\n')}\nReview the changes and make sure they are as expected.`,
      intent: `update ${file}`,
    };
  }
  const file = r.chance(0.5) ? text.test().replace(/(\.test)?\.(py|ts)$/, (m) => `_regression${m}`) : `scripts/reproduce_${r.pick(NOUNS)}.${w.lang === 'python' ? 'py' : 'ts'}`;
  const content = fill(r.int(200, 1400), () => text.codeLine()).join('\n');
  return { name: 'write_file', args: { path: file, content }, output: `File created successfully at: ${file}`, intent: `write ${file}` };
}

function fillerBash(text: Text, tokens: number, empty: boolean): ToolCallDraft {
  const r = text.rng;
  const w = text.world;
  if (empty) {
    const command = r.pick(['git add -A', `mkdir -p ${text.file().replace(/\/[^/]+$/, '/fixtures')}`, `grep -q TODO ${text.file()}`, 'git stash']);
    return bashCall(text, command, '', command.startsWith('grep') ? 1 : 0, 'stage the change');
  }
  switch (r.int(0, 6)) {
    case 0:
    case 1: {
      const test = r.chance(0.5) ? w.target.test : text.test();
      const failing = r.chance(0.4);
      return bashCall(text, w.lang === 'python' ? `python -m pytest ${test} -q` : `npx vitest run ${test}`, testOutput(text, tokens * CPT.tests, test, failing), failing ? 1 : 0, `run ${test}`);
    }
    case 2: {
      const lines = fill(tokens * CPT.listing, () => `${r.pick(['-rw-r--r--', '-rw-r--r--', 'drwxr-xr-x'])} 1 dev dev ${String(r.int(0, 99_999)).padStart(6)} Nov ${String(r.int(1, 28)).padStart(2)} ${String(r.int(0, 23)).padStart(2, '0')}:${String(r.int(0, 59)).padStart(2, '0')} ${r.pick([text.file(), text.test()]).split('/').pop()!}`);
      return bashCall(text, `ls -la ${text.file().replace(/\/[^/]+$/, '')}`, lines.join('\n'), 0, 'list the package');
    }
    case 3: {
      const file = text.file();
      const lines = [`diff --git a/${file} b/${file}`, `index ${r.hex(7)}..${r.hex(7)} 100644`, `--- a/${file}`, `+++ b/${file}`];
      lines.push(...fill(tokens * CPT.diff, () => (r.chance(0.15) ? `@@ -${r.int(1, 900)},${r.int(3, 12)} +${r.int(1, 900)},${r.int(3, 12)} @@` : `${r.pick([' ', ' ', '+', '-'])}${text.codeLine()}`)));
      return bashCall(text, `git diff ${file}`, lines.join('\n'), 0, 'review the diff so far');
    }
    case 4: {
      const lines = fill(tokens * CPT.commits, () => `${r.hex(12)} ${r.pick(COMMIT_MESSAGES)}`);
      return bashCall(text, `git log --oneline -n ${lines.length} -- ${text.file()}`, lines.join('\n'), 0, 'see who touched this last');
    }
    case 5: {
      const lines = fill(tokens * CPT.log, () => text.logLine());
      return bashCall(text, `tail -n ${lines.length} logs/app.log`, lines.join('\n'), 0, 'look at the application log');
    }
    default: {
      if (w.lang === 'typescript' && r.chance(0.5)) {
        const lines = fill(tokens * CPT.tsc, () => `${text.file()}(${r.int(1, 900)},${r.int(1, 80)}): error TS${r.int(2000, 2999)}: ${r.pick(["Argument of type 'string' is not assignable to parameter of type 'number'.", "Object is possibly 'undefined'.", `Property '${text.v()}' does not exist on type '${text.cls()}'.`])}`);
        return bashCall(text, 'npx tsc --noEmit', lines.join('\n'), 2, 'type-check the project');
      }
      const pkgs = r.sample(PACKAGES, 4);
      const lines = fill(tokens * CPT.pip, () => {
        const p = r.pick(pkgs);
        return r.chance(0.5) ? `Collecting ${p}>=${r.int(1, 9)}.${r.int(0, 30)}` : `  Downloading ${p}-${r.int(1, 9)}.${r.int(0, 30)}.${r.int(0, 9)}-py3-none-any.whl (${r.int(10, 999)} kB)`;
      });
      lines.push(`Successfully installed ${pkgs.join(' ')}`);
      return bashCall(text, `pip install -e '.[dev]'`, lines.join('\n'), 0, 'install the dev dependencies');
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// The scenario.

interface StepPlan {
  readonly kind: 'calls' | 'status' | 'final';
  readonly calls: number;
  readonly followUp: boolean;
}

/**
 * Builds a synthetic scenario. Throws a one-line CtxbenchError (OPTION_INVALID) for an out-of-range
 * option. The result passes `parseScenario`: tool calls and results pair up, and every probe's answer
 * is planted before the probe's step.
 */
export function generateScenario(options: GenerateOptions = {}): ScenarioFile {
  const o = resolveGenerateOptions(options);
  const plan = new Rng(streamSeed(o.seed, 'plan'));
  const factRng = new Rng(streamSeed(o.seed, 'facts'));
  const text = new Text(new Rng(streamSeed(o.seed, 'text')), buildWorld(new Rng(streamSeed(o.seed, 'world')), o.bashStyle));
  const world = text.world;

  // Step shapes: the first step explores, the last answers; follow-ups and parallel calls in between.
  const steps: StepPlan[] = [];
  for (let i = 0; i < o.steps; i++) {
    if (i === o.steps - 1) steps.push({ kind: 'final', calls: 0, followUp: false });
    else if (i > 0 && plan.chance(o.followUpShare)) steps.push({ kind: plan.chance(0.5) ? 'status' : 'calls', calls: 1, followUp: true });
    else steps.push({ kind: 'calls', calls: i > 0 && plan.chance(o.parallelShare) ? plan.int(2, 4) : 1, followUp: false });
  }

  // Facts: planted at distinct tool-calling steps, each probed 2 or more steps later (log-uniform gap).
  const eligible = steps.flatMap((s, i) => (s.kind === 'calls' && i >= 1 && i <= o.steps - 3 ? [i] : []));
  const factCount = Math.min(eligible.length, Math.round((o.factDensity * o.steps) / 100));
  const used = { answers: new Set<string>(), questions: new Set<string>() };
  const plants = new Map<number, { fact: Fact; index: number; mention: boolean }>();
  factRng.sample(eligible, factCount).forEach((step, index) => {
    plants.set(step, { fact: makeFact(factRng, world, used), index, mention: factRng.chance(0.4) });
  });
  const probes = [...plants.entries()].map(([step, { fact, index }]) => {
    const gap = Math.min(o.steps - 1 - step, Math.round(factRng.logUniform(2, o.steps - 1 - step)));
    return { id: `fact-${String(index + 1).padStart(3, '0')}-${fact.kind}`, step: step + Math.max(2, gap), question: fact.question, answer: fact.answer };
  });

  const messages: ScenarioFileMessage[] = [
    { role: 'system', content: systemPrompt(world) },
    { role: 'user', content: taskPrompt(text) },
  ];
  const callIds = new Set<string>();
  const newCallId = (): string => {
    for (;;) {
      const id = `call_${text.rng.alnum(24)}`;
      if (!callIds.has(id)) {
        callIds.add(id);
        return id;
      }
    }
  };
  let mention: string | undefined;
  steps.forEach((shape, i) => {
    const lead = mention ? `${mention} ` : '';
    mention = undefined;
    if (shape.kind === 'final') {
      messages.push({ role: 'assistant', content: lead + finalAnswer(text) });
      return;
    }
    if (shape.kind === 'status') {
      messages.push({ role: 'assistant', content: lead + statusUpdate(text) });
      messages.push({ role: 'user', content: followUp(text) });
      return;
    }
    const plant = plants.get(i);
    const drafts: ToolCallDraft[] = [];
    const plantAt = plant ? text.rng.int(0, shape.calls - 1) : -1;
    for (let k = 0; k < shape.calls; k++) {
      const tokens = drawTokens(text.rng, o);
      if (k === plantAt) drafts.push(plant!.fact.call(text, tokens));
      else if (i === 0) drafts.push(exploreCall(text, tokens));
      else drafts.push(fillerCall(text, tokens, text.rng.chance(0.05), shape.calls > 1));
    }
    const calls = drafts.map((d) => ({ id: newCallId(), name: d.name, arguments: JSON.stringify(d.args) }));
    messages.push({ role: 'assistant', content: lead + thought(text, i, drafts), toolCalls: calls });
    drafts.forEach((d, k) => messages.push({ role: 'tool', toolCallId: calls[k]!.id, name: d.name, content: d.output }));
    if (shape.followUp) messages.push({ role: 'user', content: followUp(text) });
    if (plant?.mention) mention = plant.fact.mention;
  });

  const d = GENERATE_DEFAULTS;
  return {
    ctxbench: 1,
    id: syntheticId(o),
    title: `Synthetic: fix \`${world.target.fn}\` in ${world.project} (${o.steps} steps, seed ${o.seed})`,
    description:
      `Synthetic long agent task generated by ctxbench (src/scenarios/generate.ts): ${o.steps} steps, seed ${o.seed}, ` +
      `median output ${o.outputTokens} tokens (heavy tail ${o.heavyTailShare}, max ${o.maxOutputTokens}), ` +
      `${o.factDensity} facts per 100 steps, parallel share ${o.parallelShare}, follow-up share ${o.followUpShare}.`,
    source: {
      format: 'ctxbench-synthetic',
      agent: 'synthetic',
      license: 'MIT (generated by ctxbench; no third-party content)',
      notes: `Regenerate with: ${generateCommand(o)}`,
    },
    model: o.contextWindow === undefined ? { name: o.model } : { name: o.model, contextWindow: o.contextWindow },
    tags: ['synthetic', `lang:${world.lang}`, `bash:${world.bashStyle}`, ...(o.outputTokens === d.outputTokens ? [] : [`output-tokens:${o.outputTokens}`])],
    probes: probes.sort((a, b) => a.step - b.step || a.id.localeCompare(b.id)),
    messages,
  };
}

/**
 * Output size in tokens: log-normal around the median; the heavy tail replaces draws above the median
 * only (so the median stays put): 4-16x the median, one in six of them huge (30-100x); capped.
 */
function drawTokens(rng: Rng, o: ResolvedGenerateOptions): number {
  const z = rng.normal();
  let tokens = o.outputTokens * Math.exp(0.6 * z);
  if (z > 0 && rng.chance(2 * o.heavyTailShare)) tokens = o.outputTokens * (rng.chance(1 / 6) ? rng.logUniform(30, 100) : rng.logUniform(4, 16));
  // Framing (line numbers, footers, headers) comes on top of the drawn size: keep a margin below the cap.
  return Math.max(8, Math.min(Math.floor(o.maxOutputTokens * 0.92), Math.round(tokens)));
}

function exploreCall(text: Text, tokens: number): ToolCallDraft {
  const w = text.world;
  const lines = fill(tokens * CPT.paths, () => `./${text.rng.chance(0.7) ? text.file() : text.test()}`, 5);
  return bashCall(text, `find . -name '*.${w.lang === 'python' ? 'py' : 'ts'}' -not -path './node_modules/*' | head -n ${lines.length}`, lines.join('\n'), 0, 'get an overview of the repository');
}

function systemPrompt(world: World): string {
  return [
    'You are a software engineering agent working in a sandboxed Linux container.',
    `The repository is checked out at ${world.root}. You can call these tools:`,
    '- read_file(path, view_range?): show a file with line numbers.',
    '- grep(pattern, path): search files; prints path:line:text for every match.',
    `- bash(command): run a shell command; ${world.bashStyle === 'openhands' ? 'the output ends with "[Command finished with exit code N]"' : 'the output is wrapped as <returncode>N</returncode><output>...</output>'}.`,
    '- write_file(path, content): create or overwrite a file.',
    '- edit_file(path, old_str, new_str): replace one exact occurrence of old_str.',
    'Think before each action and explain what you are doing. Several independent tool calls may be made in one turn.',
    'Make minimal changes to non-test files; keep the public API stable; run the relevant tests before you finish.',
  ].join('\n');
}

function taskPrompt(text: Text): string {
  const { target, root, project } = text.world;
  const r = text.rng;
  const symptom = r.pick([`drops the last ${target.noun} when the batch is empty`, `raises on a missing ${target.noun}`, `returns stale ${target.noun}s after a refresh`, `double-counts ${target.noun}s on retry`]);
  return [
    `<uploaded_files>\n${root}\n</uploaded_files>`,
    `I've uploaded the ${project} repository to ${root}. Please resolve the following issue:`,
    '',
    `<issue>\n#${r.int(100, 9999)}: \`${target.fn}\` ${symptom}\n\nSince the last release, \`${target.fn}\` in ${target.file} ${symptom}. ${sentence(text.phrase())} The regression shows up in ${target.test}.\n</issue>`,
    '',
    'Make the minimal changes to non-test files so the issue is resolved, and make sure the existing tests still pass.',
  ].join('\n');
}

const OPENERS = ['', '', '', 'Okay. ', 'Good, that helps. ', 'That narrows it down. ', 'Hmm, not what I expected. ', 'The output confirms my suspicion. ', 'Nothing surprising there. '];

function thought(text: Text, step: number, drafts: readonly ToolCallDraft[]): string {
  const r = text.rng;
  const { fn, file } = text.world.target;
  if (step === 0) return `I'll start by exploring the repository to find where \`${fn}\` lives and how it is tested. Let me ${drafts[0]!.intent}.`;
  const why = r.chance(0.35) ? ` ${r.pick([`I suspect \`${fn}\` ${r.pick(['mishandles the empty case', 'reads a stale value', 'retries without resetting state'])}.`, `The bug is probably in ${file}.`, `I want to confirm ${text.phrase()}.`])}` : '';
  if (drafts.length === 1) return `${r.pick(OPENERS)}Let me ${drafts[0]!.intent}.${why}`;
  const intents = drafts.map((d) => d.intent);
  return `${r.pick(OPENERS)}I'll do ${drafts.length} things in parallel: ${intents.slice(0, -1).join(', ')} and ${intents.at(-1)!}.${why}`;
}

function statusUpdate(text: Text): string {
  const { fn, file } = text.world.target;
  return `Status update: I've traced the problem to \`${fn}\` in ${file}; ${text.phrase()}. Before I change the behaviour, should I also ${text.rng.pick(['update the docs', 'add a changelog entry', 'keep the old keyword argument as an alias', 'touch the callers in other modules'])}?`;
}

function followUp(text: Text): string {
  const r = text.rng;
  const { fn } = text.world.target;
  return r.pick([
    `Also, please make sure \`${fn}\` keeps working when the input is empty.`,
    `Quick note: other services import \`${text.fn()}\`, so don't change its signature.`,
    'Can you run the full test suite before you finish?',
    `Please don't modify ${text.file()}; another team owns it.`,
    'Yes, go ahead, but keep the change small.',
    `One more thing: add a regression test in ${text.world.target.test}.`,
  ]);
}

function finalAnswer(text: Text): string {
  const { fn, file, test } = text.world.target;
  return `I've resolved the issue. \`${fn}\` in ${file} now ${text.rng.pick(['handles the empty case explicitly', 'refreshes its cached state before returning', 'resets the retry state between attempts'])}, and I added a regression test to ${test}. The targeted tests and the full suite pass.`;
}
