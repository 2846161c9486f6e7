/**
 * `bench scenarios gen`: writes seeded synthetic scenarios (src/scenarios/generate/) as JSON (or
 * YAML for a .yaml file): one file, K files with seeds seed..seed+K-1 into a folder, or the bundled
 * suite. Every scenario is validated before it is written.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { stringify as toYaml } from 'yaml';
import { CtxbenchError } from '../../core/errors.js';
import { createFolders } from '../../core/folders.js';
import { checkOutput, writeOutput, type OutputSpec } from '../../core/output-file.js';
import { generateScenario } from '../../scenarios/generate/index.js';
import { syntheticId } from '../../scenarios/generate/naming.js';
import { GENERATE_DEFAULTS, checkOption, type BashStyle, type GenerateOptions, type NumericOption } from '../../scenarios/generate/options.js';
import { SYNTHETIC_SUITE } from '../../scenarios/generate/suite.js';
import { parseScenario } from '../../scenarios/scenario.js';
import { MAX_ID_LENGTH, SCENARIO_FILE, type ScenarioFile } from '../../scenarios/schema.js';
import { printable } from '../printable.js';
import { parseGenCount, parseTokenCount } from '../options.js';

export interface GenOptions {
  readonly output?: string;
  readonly steps?: string;
  readonly seed?: string;
  readonly count?: string;
  readonly outputTokens?: string;
  readonly heavyTail?: string;
  readonly maxOutputTokens?: string;
  readonly factDensity?: string;
  readonly parallel?: string;
  readonly followUps?: string;
  readonly model?: string;
  readonly window?: string;
  readonly bashStyle?: string;
  readonly suite?: boolean;
}

/** A number flag checked against the generator's range; the error names the flag. */
function num(flag: string, value: string | undefined, key: NumericOption): number | undefined {
  if (value === undefined) return undefined;
  return checkOption(key, value.trim() === '' ? NaN : Number(value), flag, value);
}

function parseOptions(opts: GenOptions): GenerateOptions {
  const bashStyle = opts.bashStyle;
  if (bashStyle !== undefined && bashStyle !== 'openhands' && bashStyle !== 'returncode') {
    throw new CtxbenchError('OPTION_INVALID', `--bash-style ${bashStyle}: expected openhands or returncode`);
  }
  const options: GenerateOptions = {
    steps: num('--steps', opts.steps, 'steps'),
    seed: num('--seed', opts.seed, 'seed'),
    outputTokens: num('--output-tokens', opts.outputTokens, 'outputTokens'),
    heavyTailShare: num('--heavy-tail', opts.heavyTail, 'heavyTailShare'),
    maxOutputTokens: num('--max-output-tokens', opts.maxOutputTokens, 'maxOutputTokens'),
    factDensity: num('--fact-density', opts.factDensity, 'factDensity'),
    parallelShare: num('--parallel', opts.parallel, 'parallelShare'),
    followUpShare: num('--follow-ups', opts.followUps, 'followUpShare'),
    model: opts.model,
    contextWindow: opts.window === undefined ? undefined : checkOption('contextWindow', parseTokenCount('--window', opts.window), '--window', opts.window),
    bashStyle: bashStyle as BashStyle | undefined,
  };
  if (options.model !== undefined && options.model.trim() === '') throw new CtxbenchError('OPTION_INVALID', '--model: expected a model name');

  const median = options.outputTokens ?? GENERATE_DEFAULTS.outputTokens;
  const max = options.maxOutputTokens ?? GENERATE_DEFAULTS.maxOutputTokens;
  if (median > max) {
    throw new CtxbenchError('OPTION_INVALID', `--output-tokens ${median}: above --max-output-tokens ${max}${options.maxOutputTokens === undefined ? ' (the default; raise it)' : ''}`);
  }
  // The model is spelled out in the scenario id, which names the file: only that flag can make it too long.
  const length = syntheticId(options).length;
  if (options.model !== undefined && length > MAX_ID_LENGTH) {
    throw new CtxbenchError('OPTION_INVALID', `--model ${printable(options.model.slice(0, 40))}...: too long, the scenario id it is part of would have ${length} characters (at most ${MAX_ID_LENGTH})`);
  }
  return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as GenerateOptions;
}

const toText = (data: ScenarioFile, yaml: boolean): string => (yaml ? toYaml(data, { lineWidth: 0 }) : `${JSON.stringify(data, null, 1)}\n`);

async function isDirectory(target: string): Promise<boolean> {
  return (await stat(target).catch(() => undefined))?.isDirectory() ?? false;
}

export async function genCommand(opts: GenOptions): Promise<void> {
  const base = parseOptions(opts);
  const count = parseGenCount(opts.count);
  let runs: GenerateOptions[];
  if (opts.suite) {
    if (Object.keys(base).length > 0 || opts.count !== undefined) {
      throw new CtxbenchError('OPTION_INVALID', '--suite: writes the bundled suite as defined; drop the other knobs');
    }
    runs = [...SYNTHETIC_SUITE];
  } else {
    const first = base.seed ?? 1;
    if (first + count - 1 > 2 ** 32 - 1) throw new CtxbenchError('OPTION_INVALID', `--count ${count}: seeds past 4294967295`);
    runs = Array.from({ length: count }, (_, i) => ({ ...base, seed: first + i }));
  }

  const out = opts.output;
  const toFolder = out !== undefined && (runs.length > 1 || opts.suite === true || out.endsWith('/') || out.endsWith(path.sep) || (await isDirectory(out)));
  if (out === undefined && runs.length > 1) {
    throw new CtxbenchError('OPTION_INVALID', `${opts.suite ? '--suite' : `--count ${count}`}: writes several files; pass -o FOLDER/`);
  }

  // Every file is checked before the first is written: a refused one leaves the folder as it was.
  if (toFolder) await createFolders(out, `-o ${out}`);
  const fileOf = (options: GenerateOptions): string => (out === undefined ? '(stdout)' : toFolder ? path.join(out, `${syntheticId(options)}.json`) : out);
  const spec = (file: string): OutputSpec => ({ label: `-o ${file}`, kind: SCENARIO_FILE });
  if (out !== undefined) for (const options of runs) await checkOutput(fileOf(options), spec(fileOf(options)));

  for (const options of runs) {
    const data = generateScenario(options);
    const file = fileOf(options);
    const scenario = parseScenario(data, file); // a generator bug fails here, before anything is written
    const text = toText(data, !toFolder && out !== undefined && /\.ya?ml$/i.test(out));
    if (out === undefined) {
      process.stdout.write(text);
      continue;
    }
    await writeOutput(file, text, spec(file));
    const steps = data.messages.filter((m) => m.role === 'assistant').length;
    process.stderr.write(`wrote ${file} (${steps} steps, ${scenario.probes.length} probes, ${(Buffer.byteLength(text) / 1024).toFixed(0)} KB)\n`);
  }
}
