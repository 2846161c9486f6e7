/**
 * How the report groups runs: into run configurations (a strategy, told apart by whatever else varies
 * between its runs: one matrix column, one chart series, one Pareto point) and into scenario groups.
 */
import { basename, dirname } from 'node:path';
import type { RunResult } from '../core/run-records.js';
import type { Params } from '../core/params.js';
import { distinct, fmtInt } from './format.js';

/**
 * One run configuration. `label` is the whole name ("codex (summarization)"); tables print `name`
 * and `sub` apart.
 */
export interface Column {
  readonly label: string;
  readonly name: string;
  /** The strategy a preset runs and what else sets this column apart, or "". */
  readonly sub: string;
  readonly color: string;
  /** The line's dash pattern (canvas and SVG lengths; [] is solid), so no two columns need colour alone to tell apart. */
  readonly dash: readonly number[];
}

/** Distinct per column and stable across charts; red is left out because it means overflow, grey because it is the recorded usage. */
const PALETTE = [
  '#2f6db5', '#e07b19', '#3a9a4a', '#8e5bb0', '#14999b', '#b5912d', '#d1589c', '#7a5a45',
  '#1f3b73', '#8cb83a', '#262626', '#6cb4e4', '#a12a6b', '#0b6e4f', '#f2a46b', '#4b3fa0',
];
/** Five patterns against 16 colours: the pair repeats only after 80 columns. */
const DASHES: readonly (readonly number[])[] = [[], [8, 4], [2, 3], [10, 3, 2, 3], [5, 5]];

/** The style of the n-th column. */
export const columnStyle = (n: number): Pick<Column, 'color' | 'dash'> => ({ color: PALETTE[n % PALETTE.length]!, dash: DASHES[n % DASHES.length]! });

/** A preset is named with the strategy it runs: "codex (summarization)". */
export const baseOf = (r: RunResult): string =>
  r.config.baseStrategy && r.config.baseStrategy !== r.config.strategy ? r.config.baseStrategy : '';
/** An outside strategy is named with its file and source digest: "keep-recent (keep-recent.ts@3f2a91c0d1e2)". */
export const sourceOf = (r: RunResult): string => (r.config.strategySource ? `${basename(r.config.strategySource.file)}@${r.config.strategySource.digest}` : '');
export const strategyName = (r: RunResult): string => {
  const sub = baseOf(r) || sourceOf(r);
  return sub ? `${r.config.strategy} (${sub})` : r.config.strategy;
};

function formatParams(params: Params): string {
  return Object.entries(params)
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(', ');
}

export interface Columns {
  readonly columns: Column[];
  readonly columnOf: (run: RunResult) => Column;
}

/** `items` grouped by `key`, groups in order of first appearance and items in their order. */
function groupBy<T, K>(items: readonly T[], key: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) {
    const group = groups.get(key(item));
    if (group === undefined) groups.set(key(item), [item]);
    else group.push(item);
  }
  return groups;
}

const PART_NAMES = ['params', 'backend', 'model', 'window', 'encoding'] as const;
type Parts = Readonly<Record<(typeof PART_NAMES)[number], string>>;

/**
 * Columns are strategies; when runs of one strategy on one scenario differ in params, backend, model,
 * window or encoding, the differing parts join the label so two configurations never share a cell.
 * Linear in the runs: a sweep of hundreds of settings calls this for every table it prints.
 */
export function columnsOf(runs: readonly RunResult[]): Columns {
  const byStrategy = groupBy(runs, (r) => r.config.strategy);
  const partsOf = new Map<RunResult, Parts>();
  /** Per strategy, the parts that set its runs apart. */
  const varying = new Map<string, ReadonlySet<string>>();
  for (const [strategy, own] of byStrategy) {
    // A sweep's columns are told apart by the parameters it swept, not by all of them.
    const keys = distinct(own.flatMap((r) => Object.keys(r.config.params)));
    const swept = keys.filter((k) => distinct(own.map((r) => String(r.config.params[k]))).length > 1);
    for (const r of own) {
      partsOf.set(r, {
        params: formatParams(Object.fromEntries(swept.map((k) => [k, r.config.params[k]!]))),
        backend: r.config.backend,
        model: r.config.model,
        window: `${fmtInt(r.config.window)} window`,
        encoding: r.config.encoding,
      });
    }
    // Only what differs within one scenario and strategy: strategies differ in params by nature, and
    // scenarios recorded with different models differ in model and window, neither a reason to split.
    const byScenario = [...groupBy(own, (r) => r.config.scenarioId).values()];
    varying.set(strategy, new Set(PART_NAMES.filter((name) => byScenario.some((group) => distinct(group.map((r) => partsOf.get(r)![name])).length > 1))));
  }
  // The baseline goes first so every other column reads as a comparison against it.
  const ordered = [...runs].sort((a, b) => Number(b.config.strategy === 'raw') - Number(a.config.strategy === 'raw'));
  const columns = new Map<string, Column>();
  const byRun = new Map<RunResult, Column>();
  for (const run of ordered) {
    const parts = partsOf.get(run)!;
    const extra = PART_NAMES.filter((name) => varying.get(run.config.strategy)!.has(name) && parts[name] !== '').map((name) => parts[name]);
    const name = run.config.strategy;
    const sub = [baseOf(run), sourceOf(run), ...extra].filter((part) => part !== '').join(' · ');
    const label = sub ? `${name} (${sub})` : name;
    if (!columns.has(label)) columns.set(label, { label, name, sub: sub ? `(${sub})` : '', ...columnStyle(columns.size) });
    byRun.set(run, columns.get(label)!);
  }
  return { columns: [...columns.values()], columnOf: (run) => byRun.get(run)! };
}

/** The runs of each column, in column order. */
export function runsByColumn({ columns, columnOf }: Columns, runs: readonly RunResult[]): { col: Column; runs: RunResult[] }[] {
  const byColumn = groupBy(runs, columnOf);
  return columns.map((col) => ({ col, runs: byColumn.get(col) ?? [] }));
}

/** The folder a scenario was loaded from, as the exports name it (`scenarioGroup`). */
export const scenarioGroupOf = (run: RunResult): string => basename(dirname(run.config.scenarioFile)) || '.';

/** The folder of a scenario's file; its parent when the folder is named after the scenario (a dataset's one folder per task). */
function datasetFolder(run: RunResult): string {
  const folder = dirname(run.config.scenarioFile);
  return basename(folder) === run.config.scenarioId ? dirname(folder) : folder;
}

/**
 * The page's scenario groups, one per dataset or agent: the folder a scenario came from, above its
 * own folder when it has one (a dataset of one folder per task: `trajs/<id>/<id>.traj.json`), with
 * its parent's name too when another group's folder has the same name (`a/trajs`, `b/trajs`). What
 * the user passed as a dataset's root is not recorded, and guessing it from the folders the runs share
 * merged unrelated ones (the bundled suite and a folder of logs, both under one home folder). The
 * bundled suite: one per agent, and synthetic.
 */
export function scenarioGroupsOf(runs: readonly RunResult[]): (run: RunResult) => string {
  const folders = new Map(runs.map((r) => [r, datasetFolder(r)]));
  const named = new Map<string, Set<string>>();
  for (const folder of new Set(folders.values())) named.set(basename(folder), (named.get(basename(folder)) ?? new Set()).add(folder));
  return (run) => {
    const folder = folders.get(run)!;
    const name = basename(folder) || '.';
    return named.get(basename(folder))!.size > 1 ? `${basename(dirname(folder)) || '.'}/${name}` : name;
  };
}
