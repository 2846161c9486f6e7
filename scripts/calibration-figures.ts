/**
 * The token calibration figures of README "Token calibration", measured on the recorded trajectories
 * in ../shared/data/trajectories (relative to the repo root): for each agent, all of its trajectories,
 * the bundled ones, and the ones the project does not ship; each with the calibration `bench run` would
 * fit (factor, overhead, errors before, in sample and out of sample). src/metrics/calibration.test.ts
 * checks the built-in calibrations and the out-of-sample errors against the same sets.
 *
 *   npx tsx scripts/calibration-figures.ts [--encoding o200k_base]
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createTokenCounter, ENCODINGS, type Encoding } from '../src/core/tokens.js';
import { fitByModel, type Calibration } from '../src/metrics/calibration.js';
import { loadScenarioFiles } from '../src/scenarios/load.js';
import type { Scenario } from '../src/scenarios/scenario.js';
import { BUNDLES, DATA_DIR } from './bundle-scenarios.js';

/** One agent's recorded trajectories: where they are, and which of them the project bundles. */
export interface CalibrationSet {
  readonly agent: string;
  /** Every trajectory's files, relative to DATA_DIR, one entry per run (an OpenHands instance folder holds one file per call). */
  readonly runs: readonly (readonly string[])[];
  /** The runs the bundled scenarios are made from (scripts/bundle-scenarios.ts). */
  readonly bundled: ReadonlySet<string>;
}

const bundledSources = new Set(BUNDLES.flatMap((b) => b.sources));

/** The folders under `dir` (relative to DATA_DIR), sorted. */
const folders = (dir: string): string[] =>
  readdirSync(path.join(DATA_DIR, dir), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();

/** The two agents whose recordings carry provider usage: mini-swe-agent + Gemini 3 Pro (per step) and OpenHands + Claude 3.5 Sonnet (per call file). */
export function calibrationSets(): CalibrationSet[] {
  const mini = 'mini-swe-agent-gemini3pro/trajs';
  const openhands = 'openhands-codeact-sonnet35-swebench-verified/llm_completions';
  const sets = [
    { agent: 'mini-swe-agent + Gemini 3 Pro', runs: folders(mini).filter((id) => id.includes('__')).map((id) => [`${mini}/${id}/${id}.traj.json`]) },
    {
      agent: 'OpenHands + Claude 3.5 Sonnet',
      runs: folders(openhands).map((id) => readdirSync(path.join(DATA_DIR, openhands, id)).sort().map((file) => `${openhands}/${id}/${file}`)),
    },
  ];
  return sets.map((set) => ({ ...set, bundled: new Set(set.runs.filter((files) => files.some((f) => bundledSources.has(f))).map((files) => files[0]!)) }));
}

/** The scenarios of some runs of a set (one per run). */
export async function loadRuns(runs: readonly (readonly string[])[]): Promise<Scenario[]> {
  const loaded = [];
  for (const files of runs) loaded.push(...(await loadScenarioFiles(files.map((f) => path.join(DATA_DIR, f)))));
  return loaded.map((l) => l.scenario);
}

/** The one calibration `bench run` fits on these scenarios (they name one model). */
export async function calibrationOf(scenarios: readonly Scenario[], encoding: Encoding): Promise<Calibration> {
  const fits = [...fitByModel(scenarios, await createTokenCounter(encoding)).values()];
  if (fits.length !== 1) throw new Error(`expected one model, got ${fits.length}`);
  return fits[0]!;
}

const pct = (n: number): string => `${n.toFixed(1)}%`;
const signed = (n: number): string => `${n >= 0 ? '+' : ''}${n.toFixed(1)}%`;

/** A README table row. */
function row(data: string, c: Calibration): string {
  const model = c.overhead > 0 ? `+${c.overhead} per request, x${c.factor.toFixed(3)}` : `x${c.factor.toFixed(3)}`;
  const outOfSample = c.outOfSample ? pct(c.outOfSample.meanAbsPctError) : 'n/a (one scenario)';
  return `| ${data} | ${c.samples} of ${c.scenarios} | ${model} | ${signed(c.before.meanPctError)} | ${pct(c.before.meanAbsPctError)} -> ${pct(c.after.meanAbsPctError)} | ${outOfSample} |`;
}

async function main(): Promise<void> {
  const at = process.argv.indexOf('--encoding');
  const encodings = at > 0 ? [process.argv[at + 1] as Encoding] : ENCODINGS;
  for (const encoding of encodings) {
    console.log(`\n${encoding}\n| data | requests of scenarios | calibration | mean error before | mean absolute error before -> after (in sample) | out of sample |\n| --- | --- | --- | --- | --- | --- |`);
    for (const set of calibrationSets()) {
      const all = set.runs;
      const bundled = all.filter((files) => set.bundled.has(files[0]!));
      const unshipped = all.filter((files) => !set.bundled.has(files[0]!));
      for (const [what, runs] of [['all', all], ['bundled', bundled], ['not shipped', unshipped]] as const) {
        console.log(row(`${set.agent}: ${what} (${runs.length})`, await calibrationOf(await loadRuns(runs), encoding)));
      }
    }
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
