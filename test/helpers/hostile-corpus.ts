/**
 * A seeded corpus of hostile and clumsy scenario files: real files of every format ctxbench imports
 * (and a generated ctxbench scenario), each bent by a few random edits of its structure (a field
 * deleted, a value replaced by a hostile one, an element duplicated or swapped, an array cut) and
 * sometimes of its bytes (cut short, a stray byte, a BOM, CRLF), written as JSON, JSONL or YAML. The
 * same seed gives the same files, so a failure names a case that can be replayed.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { stringify as toYaml } from 'yaml';
import { generateScenario } from '../../src/scenarios/generate/index.js';
import { mulberry32 } from '../../src/scenarios/generate/random.js';

const FIXTURES = path.resolve(import.meta.dirname, '../../fixtures/trajectories');

export interface HostileCase {
  /** Case number and what was done to the base: `17 openai-chat: set messages.2.content; truncated`. */
  readonly name: string;
  /** The file's name, with the extension that picks its parser. */
  readonly file: string;
  readonly text: string;
}

interface Base {
  readonly name: string;
  readonly value: unknown;
  /** Write it as JSONL (one array element per line) instead of JSON or YAML. */
  readonly lines?: boolean;
}

const json = (file: string): unknown => JSON.parse(readFileSync(path.join(FIXTURES, file), 'utf8'));
const jsonLines = (file: string, max: number): unknown[] =>
  readFileSync(path.join(FIXTURES, file), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .slice(0, max)
    .map((l) => JSON.parse(l) as unknown);

/** Cuts a recorded run's message list to its first `keep` messages, so each case stays small. */
function trimmed(value: unknown, key: string, keep: number): unknown {
  const record = value as Record<string, unknown>;
  const list = record[key];
  return Array.isArray(list) ? { ...record, [key]: list.slice(0, keep) } : value;
}

/** One small real (or generated) file per format. */
export function hostileBases(): Base[] {
  return [
    { name: 'ctxbench', value: generateScenario({ steps: 20, seed: 5, outputTokens: 60, maxOutputTokens: 400 }) },
    { name: 'openai-chat', value: json('openai-chat/chat.json') },
    { name: 'openai-chat-jsonl', value: jsonLines('openai-chat/conversations.jsonl', 10), lines: true },
    { name: 'anthropic-messages', value: json('anthropic-messages/messages.json') },
    {
      name: 'openhands-litellm',
      value: json('openhands-codeact-sonnet35-swebench-verified/llm_completions/astropy__astropy-12907/litellm_proxy__claude-3-5-sonnet-20241022-1733339462.430701.json'),
    },
    { name: 'tau-bench', value: (json('tau-bench-gpt4o-airline/historical_trajectories/gpt-4o-airline.json') as unknown[]).slice(0, 2) },
    {
      name: 'swe-agent',
      value: trimmed(json('swe-agent-format-samples/tests/test_data/trajectories/gpt4__swe-bench-dev-easy_first_only__default__t-0.00__p-0.95__c-3.00__install-1/pydicom__pydicom-1458.traj'), 'history', 14),
    },
    { name: 'mini-swe-agent', value: trimmed(json('mini-swe-agent-gemini3pro/trajs/django__django-14155/django__django-14155.traj.json'), 'messages', 14) },
    { name: 'openhands-events', value: jsonLines('openhands-event-history-multi-swe-bench/evaluation/benchmarks/multi_swe_bench/examples/output.jsonl', 1), lines: true },
  ];
}

/** Values a careless or hostile writer puts where something else belongs. */
const HOSTILE_VALUES: readonly unknown[] = [
  null,
  true,
  0,
  -1,
  -0.5,
  1.5,
  2 ** 31,
  1e16,
  1e308,
  -1e308,
  '',
  ' ',
  'NaN',
  '-190',
  '12.5',
  '\u0000\u001b[2J\u001b[31m',
  '<script>alert(1)</script><img src=x onerror=alert(2)>',
  '../../../../etc/passwd',
  '__proto__',
  'x'.repeat(40_000),
  ' '.repeat(20_000),
  '中文'.repeat(4000),
  '\ud800',
  [],
  {},
  JSON.parse('{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}}'),
  Array.from({ length: 3 }, () => ({ role: 'tool', content: 'orphan' })),
  nested(400),
];

function nested(depth: number): unknown {
  let value: unknown = 'bottom';
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

type Random = () => number;
const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const isContainer = (v: unknown): v is Record<string, unknown> | unknown[] => typeof v === 'object' && v !== null;

/** A random place in `root`: the container and the key in it (never the root itself). */
function randomSpot(random: Random, root: unknown): { parent: Record<string, unknown> | unknown[]; key: string | number; path: string } | undefined {
  let parent: unknown = root;
  const steps: (string | number)[] = [];
  for (let depth = 0; depth < 12 && isContainer(parent); depth++) {
    const keys: (string | number)[] = Array.isArray(parent) ? parent.map((_, i) => i) : Object.keys(parent);
    if (keys.length === 0) break;
    const key = pick(random, keys);
    steps.push(key);
    const child = (parent as Record<string | number, unknown>)[key];
    if (!isContainer(child) || random() < 0.3) return { parent, key, path: steps.join('.') };
    parent = child;
  }
  return undefined;
}

/** One edit of the structure, in place; what it did, for the case's name. */
function mutate(random: Random, root: unknown): string {
  const spot = randomSpot(random, root);
  if (!spot) return 'nothing';
  const { parent, key, path: where } = spot;
  const op = pick(random, ['set', 'set', 'set', 'delete', 'duplicate', 'swap', 'truncate']);
  const child = (parent as Record<string | number, unknown>)[key];
  switch (op) {
    case 'set':
      (parent as Record<string | number, unknown>)[key] = structuredClone(pick(random, HOSTILE_VALUES));
      return `set ${where}`;
    case 'delete':
      if (Array.isArray(parent)) parent.splice(Number(key), 1);
      else delete parent[key];
      return `delete ${where}`;
    case 'duplicate':
      if (Array.isArray(parent)) parent.splice(Number(key), 0, structuredClone(child));
      else (parent as Record<string, unknown>)[`${String(key)}_copy`] = structuredClone(child);
      return `duplicate ${where}`;
    case 'swap': {
      if (!Array.isArray(parent) || parent.length < 2) return `kept ${where}`;
      const other = Math.floor(random() * parent.length);
      [parent[Number(key)], parent[other]] = [parent[other], parent[Number(key)]];
      return `swap ${where}~${other}`;
    }
    default:
      if (Array.isArray(child)) child.length = Math.floor(random() * child.length);
      return `truncate ${where}`;
  }
}

/** One edit of the bytes: cut short, a stray character, a BOM, CRLF line ends. */
function damage(random: Random, text: string): { text: string; what: string } {
  const at = Math.floor(random() * text.length);
  switch (pick(random, ['cut', 'byte', 'bom', 'crlf'])) {
    case 'cut':
      return { text: text.slice(0, at), what: `cut at ${at}` };
    case 'byte':
      return { text: `${text.slice(0, at)}${pick(random, ['\u0000', '"', '{', ']', '\ufffd', '\\', ':'])}${text.slice(at)}`, what: `byte at ${at}` };
    case 'bom':
      return { text: `\ufeff${text}`, what: 'BOM' };
    default:
      return { text: text.replace(/\n/g, '\r\n'), what: 'CRLF' };
  }
}

/** `count` cases from `seed`, cycling through the bases. */
export function hostileCorpus(seed: number, count: number, bases: readonly Base[] = hostileBases()): HostileCase[] {
  const random = mulberry32(seed);
  return Array.from({ length: count }, (_, i) => {
    const base = bases[i % bases.length]!;
    const value = structuredClone(base.value);
    const edits = Array.from({ length: 1 + Math.floor(random() * 3) }, () => mutate(random, value));
    const yaml = !base.lines && random() < 0.25;
    let text = base.lines && Array.isArray(value) ? value.map((v) => JSON.stringify(v)).join('\n') : yaml ? toYaml(value, { aliasDuplicateObjects: false }) : JSON.stringify(value, null, 1);
    if (random() < 0.15) {
      const damaged = damage(random, text);
      text = damaged.text;
      edits.push(damaged.what);
    }
    const ext = base.lines ? 'jsonl' : yaml ? 'yaml' : base.name === 'swe-agent' ? 'traj' : 'json';
    return { name: `${i} ${base.name}: ${edits.join('; ')}`, file: `case-${i}.${ext}`, text };
  });
}
