/**
 * Cost against success for every run configuration, the Pareto front (no other configuration is both
 * cheaper and more successful), and the recommended default with the rule that picked it.
 */
import { aggregateRuns } from '../metrics/aggregate.js';
import { probesPassed } from '../metrics/probe-verdict.js';
import type { RunResult } from '../core/run-records.js';
import type { Column } from './columns.js';
import { distinct, dollars, fmtInt, fmtPct, sum } from './format.js';

/** The recommendation gives up at most this much success (1 percentage point) for a lower cost. */
export const WITHIN = 0.01;

export const SUCCESS_DEFINITION =
  'Success of a run: 0 when it did not complete (the provider refused or cut its context, or the strategy gave up, so the task failed); ' +
  'otherwise the share of what it had to keep that it kept: probes passed, and reference recall on recorded scenarios (their mean when it has both; 1 when it has neither). ' +
  'A configuration scores the mean over its scenarios.';

export interface ParetoPoint {
  readonly label: string;
  readonly color: string;
  readonly dash: readonly number[];
  /** Dollars, or billed input tokens when some run has no price or every one ran on a local model (see Pareto.axis). */
  readonly cost: number;
  /** Mean success over the compared scenarios, in [0, 1]. */
  readonly success: number;
  readonly costText: string;
  readonly successText: string;
  readonly front: boolean;
  readonly recommended: boolean;
}

export interface Pareto {
  readonly axis: 'dollars' | 'billed input tokens';
  /** Cheapest first. */
  readonly points: ParetoPoint[];
  /** The recommended configuration's label, when there is one. */
  readonly recommended: string | null;
  /**
   * When the recommended configuration is a sweep's, each swept number it takes at the end of the
   * grid ("softThreshold=0.9, the largest of 0.5 to 0.9"): a better setting may lie beyond.
   */
  readonly edge: string | null;
  /**
   * Values the sweep's `--grid` asked for beyond the recommended setting that never ran (the strategy
   * refused them: `bench sweep` warned why), so the grid cannot be extended that way: "softThreshold 0.9".
   */
  readonly refused: string | null;
  /** What the rule picks when the recommended configuration is left out, with its numbers. */
  readonly runnerUp: string | null;
  /** How the recommendation was picked, with the numbers. */
  readonly rule: string;
  /** Caveats: scenarios left out so every configuration is compared on the same ones. */
  readonly note: string;
}

/** One run's success, as SUCCESS_DEFINITION says. */
export function runSuccess(run: RunResult): number {
  if (run.summary.status !== 'completed') return 0;
  const { probes, referenceRecall } = run.summary;
  const shares = [
    ...(probes.total > 0 ? [probesPassed(probes) / probes.total] : []),
    ...(referenceRecall && referenceRecall.total > 0 ? [referenceRecall.present / referenceRecall.total] : []),
  ];
  return shares.length ? sum(shares, (s) => s) / shares.length : 1;
}

/** Whether `a` dominates `b`: no worse on both axes, better on one. */
const dominates = (a: { cost: number; success: number }, b: { cost: number; success: number }): boolean =>
  a.cost <= b.cost && a.success >= b.success && (a.cost < b.cost || a.success > b.success);

/** The numbers each `--grid name=...` of the batches' commands asked for (v1,v2,... or from:to:step). */
export function gridAsked(commands: readonly string[]): Map<string, number[]> {
  const asked = new Map<string, number[]>();
  for (const command of commands) {
    const words = command.split(/\s+/).map((w) => w.replace(/^['"]|['"]$/g, ''));
    words.forEach((word, i) => {
      const raw = word === '--grid' ? words[i + 1] : word.startsWith('--grid=') ? word.slice('--grid='.length) : undefined;
      const [name, text] = raw?.split('=') ?? [];
      if (!name || text === undefined) return;
      const range = /^(-?[\d.]+):(-?[\d.]+):([\d.]+)$/.exec(text);
      const values = range
        ? Array.from({ length: Math.floor((Number(range[2]) - Number(range[1])) / Number(range[3]) + 1e-9) + 1 }, (_, k) => Number((Number(range[1]) + k * Number(range[3])).toFixed(10)))
        : text.split(',').map(Number);
      asked.set(name, distinct([...(asked.get(name) ?? []), ...values.filter(Number.isFinite)]));
    });
  }
  return asked;
}

/**
 * The swept numbers the picked configuration takes at the low or high end of its strategy's grid (3
 * settings or more), as "name=value, the largest of a to b"; null when none is. An end past which the
 * grid asked for values that never ran (refused) is no edge to extend: those values are `refused`.
 */
function gridEdge(picked: readonly RunResult[], groups: readonly (readonly RunResult[])[], asked: ReadonlyMap<string, readonly number[]>): { edge: string | null; refused: string | null } {
  const config = picked[0]?.config;
  if (!config) return { edge: null, refused: null };
  const settings = groups.flatMap((runs) => (runs[0] && runs[0].config.strategy === config.strategy ? [runs[0].config.params] : []));
  const edges: string[] = [];
  const refused: string[] = [];
  for (const [name, value] of Object.entries(config.params)) {
    if (typeof value !== 'number') continue;
    const values = distinct(settings.map((p) => p[name]).filter((v): v is number => typeof v === 'number')).sort((a, b) => a - b);
    if (values.length < 3 || (value !== values[0] && value !== values.at(-1))) continue;
    const largest = value === values.at(-1);
    const beyond = (asked.get(name) ?? []).filter((v) => (largest ? v > value : v < value));
    if (beyond.length) refused.push(`${name} ${beyond.join(', ')}`);
    else edges.push(`${name}=${value}, the ${largest ? 'largest' : 'smallest'} of ${values[0]} to ${values.at(-1)}`);
  }
  return { edge: edges.length ? edges.join('; ') : null, refused: refused.length ? refused.join('; ') : null };
}

/** `commands`: the batches' command lines, for the values a sweep's grid asked for (`gridAsked`). */
export function paretoOf(groups: readonly { col: Column; runs: RunResult[] }[], commands: readonly string[] = []): Pareto {
  const sets = groups.map((g) => new Set(g.runs.map((r) => r.config.scenarioId)));
  const all = distinct(groups.flatMap((g) => g.runs.map((r) => r.config.scenarioId)));
  const common = all.filter((id) => sets.every((set) => set.has(id)));
  const note =
    common.length === all.length
      ? ''
      : `Compared on the ${fmtInt(common.length)} of ${fmtInt(all.length)} scenarios every configuration ran.`;
  if (common.length === 0) return { axis: 'dollars', points: [], recommended: null, runnerUp: null, edge: null, refused: null, rule: 'No scenario was run by every configuration: nothing to compare.', note };

  const compared = groups.map((g) => ({ col: g.col, runs: g.runs.filter((r) => common.includes(r.config.scenarioId)) }));
  const aggregates = compared.map(({ runs }) => aggregateRuns(runs));
  // Local models cost $0 but the same tokens: when every configuration ran on one, tokens tell them apart.
  const priced = aggregates.every((a) => a.cost.pricedRuns === a.runs) && !aggregates.every((a) => a.cost.local);
  const axis = priced ? 'dollars' : 'billed input tokens';
  // Compared at 1/100 of a cent, so float noise doesn't part equal costs; printed once, from the exact
  // sum, as the summary table prints it (rounding the rounded value read $207.515 as $207.51 here).
  const raw = compared.map(({ col, runs }, i) => ({
    col,
    runs,
    cost: priced ? Number(aggregates[i]!.cost.usd!.toFixed(4)) : aggregates[i]!.inputTokens,
    costText: priced ? dollars(aggregates[i]!.cost.usd!) : `${fmtInt(aggregates[i]!.inputTokens)} tokens`,
    success: Math.round((sum(runs, runSuccess) / runs.length) * 1000) / 1000,
  }));
  // Cheapest within WITHIN of the best; among equal costs the more successful, then the first column.
  // When no configuration completed a run, the cheapest failure is no default anyone should pick.
  const pickOf = <P extends { cost: number; success: number }>(among: readonly P[]): P | undefined => {
    const best = Math.max(0, ...among.map((p) => p.success));
    return best === 0 ? undefined : among.filter((p) => p.success >= best - WITHIN - 1e-9).sort((a, b) => a.cost - b.cost || b.success - a.success)[0];
  };
  const best = Math.max(...raw.map((p) => p.success));
  const pick = pickOf(raw);
  // What the same rule picks without the recommended one.
  const runnerUp = pickOf(raw.filter((p) => p !== pick));
  const points = raw
    .map((p) => ({
      label: p.col.label,
      color: p.col.color,
      dash: p.col.dash,
      cost: p.cost,
      success: p.success,
      costText: p.costText,
      successText: fmtPct(p.success),
      front: !raw.some((q) => dominates(q, p)),
      recommended: p === pick,
    }))
    .sort((a, b) => a.cost - b.cost || b.success - a.success);
  if (pick === undefined) {
    // Runs that errored say nothing of the settings: the way out is to run them again, not a larger window.
    const errored = compared.every(({ runs }) => runs.every((r) => r.summary.status === 'error'));
    const rule = errored
      ? 'No configuration completed a run (every run ended with an error): nothing to recommend; bench run --resume runs them again.'
      : 'No configuration completed a run (each overflowed the window, broke tool-call pairing, was stopped or failed): nothing to recommend; try a larger window or other settings.';
    return { axis, points, recommended: null, runnerUp: null, edge: null, refused: null, rule, note };
  }
  const rule =
    raw.length === 1
      ? `Only one configuration ran: ${pick.col.label}.`
      : `The cheapest configuration (by ${axis}) whose success is within ${WITHIN * 100} percentage point of the best (${fmtPct(best)}): ` +
        `${pick.col.label}, ${fmtPct(pick.success)} for ${pick.costText}.`;
  return {
    axis,
    points,
    recommended: pick.col.label,
    runnerUp: runnerUp ? `${runnerUp.col.label}, ${fmtPct(runnerUp.success)} for ${runnerUp.costText}` : null,
    ...gridEdge(pick.runs, compared.map((g) => g.runs), gridAsked(commands)),
    rule,
    note,
  };
}
