/**
 * Planted facts: a value (a config number, a commit hash, a file path, a test seed, a request id), the
 * question a probe asks about it, and the tool call whose output reveals it.
 *
 * Planted facts are distinctive by construction, so a probe's answer is in the history exactly where it
 * was planted (the tool output at the plant step, and maybe the next assistant turn), nowhere else:
 * - numbers are 6 or 7 digits; filler text never holds a run of 6 digits (line numbers, sizes,
 *   constants stay below 100,000; filler hashes are drawn without 6-digit runs);
 * - hashes and request ids hold a 6-digit run, which filler hashes never do;
 * - paths use words (FACT_WORDS) that filler text never uses.
 * Every answer is also one `extractFacts` finds (a number, a hash, an identifier or a path).
 */
import { camel, snake } from './casing.js';
import type { Rng } from './random.js';
import { CPT } from './sizes.js';
import { fill, insertAt, type Text } from './text.js';
import { bashCall, testOutput, type ToolCallDraft } from './tool-calls.js';
import { COMMIT_MESSAGES, CONFIG_KEYS, CONFIG_SECTIONS, FACT_MEASURES, FACT_UNITS, FACT_WORDS, MODULES } from './vocabulary.js';
import type { World } from './world.js';

type FactKind = 'config' | 'commit' | 'path' | 'seed' | 'request';
const FACT_KINDS: readonly FactKind[] = ['config', 'commit', 'path', 'seed', 'request'];

export interface Fact {
  readonly kind: FactKind;
  readonly answer: string;
  readonly question: string;
  /** What the assistant says about it, when it mentions it right after the plant. */
  readonly mention: string;
  /** The tool call that reveals it (its output holds `answer`). */
  readonly call: (text: Text, tokens: number) => ToolCallDraft;
}

const CONFIG_FILES = ['service', 'production', 'staging', 'defaults'];
const COMMIT_VERBS = ['Switch', 'Move', 'Pin', 'Rework'];
const COMMIT_OBJECTS = ['snapshots', 'shards', 'retries', 'exports'];
const COMMIT_MODES = ['incremental', 'batched', 'lazy', 'strict'];
const PATH_VERBS = ['rebalance', 'reconcile', 'rehydrate', 'quarantine'];
const PATH_NOUNS = ['shards', 'ledgers', 'buckets'];
const LOGS = ['app', 'gateway', 'worker'];

/** How many distinct questions draftFact can ask in one round: one per combination of the words each kind's question names. */
function questionsPerRound(world: World): number {
  const words = FACT_WORDS.length;
  const config = words * FACT_MEASURES.length * FACT_UNITS.length * CONFIG_FILES.length;
  const commit = COMMIT_VERBS.length * words * COMMIT_OBJECTS.length * COMMIT_MODES.length;
  return config + commit + PATH_VERBS.length * words * PATH_NOUNS.length + world.tests.length + words * LOGS.length;
}

/**
 * A fact whose answer neither contains nor is contained in an earlier one, and whose question is new.
 * Once every question of a round is asked (about 4,300: `--fact-density 50` over 10,000 steps plants
 * 5,000 facts), the next round's questions name the fact words with its number ("zephyr2") and the
 * flaky run by its number: new questions, where the draw would otherwise never end. Round 0 is the
 * vocabulary as it always was, so every setting that finished before gives the same file.
 */
export function makeFact(rng: Rng, world: World, used: { answers: Set<string>; questions: Set<string> }): Fact {
  const round = Math.floor(used.questions.size / questionsPerRound(world));
  for (;;) {
    const fact = draftFact(rng, world, round);
    const clash = used.questions.has(fact.question) || [...used.answers].some((u) => u.includes(fact.answer) || fact.answer.includes(u));
    if (!clash) {
      used.answers.add(fact.answer);
      used.questions.add(fact.question);
      return fact;
    }
  }
}

function draftFact(rng: Rng, world: World, round: number): Fact {
  const kind = rng.pick(FACT_KINDS);
  const word = `${rng.pick(FACT_WORDS)}${round === 0 ? '' : round + 1}`;
  const ext = world.lang === 'python' ? 'py' : 'ts';
  switch (kind) {
    case 'config': {
      const key = snake(word, rng.pick(FACT_MEASURES), rng.pick(FACT_UNITS));
      const value = String(rng.int(100_000, 999_999));
      const file = `config/${rng.pick(CONFIG_FILES)}.toml`;
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
      const subject = `${rng.pick(COMMIT_VERBS)} ${word} ${rng.pick(COMMIT_OBJECTS)} to ${rng.pick(COMMIT_MODES)} mode`;
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
      const fn = (world.lang === 'python' ? snake : camel)(rng.pick(PATH_VERBS), word, rng.pick(PATH_NOUNS));
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
      const run = round === 0 ? 'the flaky run' : `flaky run ${round + 1}`;
      return {
        kind,
        answer: seed,
        question: `Which --randomly-seed value did ${run} of ${test} print?`,
        mention: `${run[0]!.toUpperCase()}${run.slice(1)} of ${test} used --randomly-seed=${seed}; I'll reuse it to reproduce.`,
        call: (text, tokens) => {
          const out = testOutput(text, tokens * CPT.tests, test, true, `Using --randomly-seed=${seed}`);
          return bashCall(text, world.lang === 'python' ? `python -m pytest ${test} -p randomly -q` : `npx vitest run ${test} --sequence.shuffle`, out, 1, `rerun ${test} with shuffling to catch the flaky failure`);
        },
      };
    }
    case 'request': {
      const id = `req_${rng.factHex(12)}`;
      const log = `logs/${rng.pick(LOGS)}.log`;
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

/** About `chars` characters of TOML once numbered, with `planted` somewhere after the first section header. */
function configLines(text: Text, chars: number, planted: string): string[] {
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
  insertAt(r, lines, planted, 1);
  return lines;
}
