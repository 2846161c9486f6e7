/**
 * The summary: one row per run configuration, one column per metric (completion, what the task
 * kept, cost, context), each cell with the number it sorts by and the best of a column marked.
 */
import { aggregateRuns, costText, type CostTotal, type ProbeTotals, type RecallTotal, type RecoveryTotal, type RunsAggregate } from '../metrics/aggregate.js';
import type { RunResult } from '../core/run-records.js';
import type { Column } from './columns.js';
import { STATUS_TEXT, dollars, fmtInt, fmtPct, roundPct, shy } from './format.js';

/** Which end of a summary column is best. */
type Better = 'max' | 'min';

export interface SummaryTable {
  readonly groups: { label: string; span: number }[];
  readonly columns: SummaryHeader[];
  readonly rows: SummaryRow[];
  /** How the best values were picked, printed under the table. */
  readonly bestNote: string;
}

interface SummaryHeader {
  /** Index of the column's cells in a body row (0 is the strategy). */
  readonly index: number;
  readonly label: string;
  readonly title: string;
  /** The first click sorts best first. */
  readonly first: 'asc' | 'desc';
}

interface SummaryRow extends Column {
  readonly cells: SummaryCell[];
}

interface SummaryCell {
  readonly text: string;
  /** Secondary detail printed small after the value (probes: v/s/r), or "". */
  readonly detail: string;
  readonly title: string;
  /** The number the column sorts by ("" when there is none: such rows sort last). */
  readonly sort: string;
  readonly best: boolean;
  readonly bad: boolean;
}

interface CellValue {
  readonly text: string;
  /** What the column sorts and compares by, at the precision shown; null for none. */
  readonly value: number | null;
  readonly detail?: string;
  readonly title?: string;
  readonly bad?: boolean;
  /** False when the value is a lower bound (a cost with unknown parts): sorted, never best. */
  readonly comparable?: boolean;
}

interface SummaryColumn {
  readonly group: string;
  readonly label: string;
  readonly title: string;
  readonly better?: Better;
  /** Best among every row, not only the strategies that completed every run (the completion column). */
  readonly allRows?: boolean;
  readonly show?: boolean;
  cell(aggregate: RunsAggregate): CellValue;
}

const pctCell = (part: number, whole: number, title = ''): CellValue =>
  whole === 0 ? { text: '—', value: null, title } : { text: fmtPct(part / whole), value: roundPct(part / whole), title };
const intCell = (n: number): CellValue => ({ text: fmtInt(n), value: n });
const meanCell = (fraction: number): CellValue => ({ text: fmtPct(fraction), value: roundPct(fraction) });

/** Probes still answerable at their step / probes asked (unreached ones count as lost). */
export function probeCell({ passed, total, verbatim: v, summary: s, recoverable: r, answered }: ProbeTotals): CellValue {
  if (total === 0) return { text: '—', value: null };
  const where = `${v} verbatim in the context, ${s} kept by a summary, ${r} recoverable from the offload store`;
  return {
    text: `${fmtInt(passed)}/${fmtInt(total)}`,
    value: passed / total,
    detail: `${answered ? 'answered; ' : ''}v${v} s${s} r${r}`,
    title: answered ? `${passed} answered correctly by the model; in the context: ${where}` : `${where}, ${total - passed} lost`,
  };
}

/**
 * References still in the context / references used, over the steps the runs reached; `reached` says
 * how many of the recorded steps that was when runs ended early (an overflowed raw keeps 100% of what
 * it saw before it stopped), as the Metrics section defines it.
 */
export function recallCell({ present, total }: RecallTotal, reached?: { readonly steps: number; readonly totalSteps: number }): CellValue {
  const cell = pctCell(present, total);
  if (reached === undefined || cell.value === null || reached.steps >= reached.totalSteps) return cell;
  return {
    ...cell,
    detail: `${fmtInt(reached.steps)} of ${fmtInt(reached.totalSteps)} steps`,
    title: `over the ${fmtInt(reached.steps)} of ${fmtInt(reached.totalSteps)} recorded steps the runs reached: the steps after a run ended are not counted`,
  };
}

/** The cached share of input; "n/a" when no run knows its cache hits. */
function cachedCell(a: RunsAggregate): CellValue {
  if (a.cachedInputTokens === null) return { text: 'n/a', value: null, title: 'unknown: the provider reports no prompt-cache hits (e.g. Ollama)' };
  return a.cachedShare === null ? { text: '—', value: null } : { text: fmtPct(a.cachedShare), value: roundPct(a.cachedShare) };
}

/** Dollars; "local" for a model on the user's own hardware; a lower bound ("+", never best) when only some runs are priced. */
function costCell(cost: CostTotal, runs: number): CellValue {
  if (cost.local) return { text: 'local', value: 0, title: 'a model on your own hardware: $0' };
  if (cost.usd === null) return { text: '-', value: null, title: 'no price known for the price model' };
  const value = Number(dollars(cost.usd).slice(1));
  const text = costText(cost, dollars);
  if (!cost.partial) return { text, value };
  return { text, value, comparable: false, title: `${cost.pricedRuns} of ${runs} runs priced` };
}

function rereadCell(recovery: RecoveryTotal | null): CellValue {
  if (recovery === null) return { text: '-', value: null, title: 'replayed forced (teacher forcing)' };
  const extra = recovery.totalSteps === 0 ? 0 : recovery.rereads / recovery.totalSteps;
  return { ...intCell(recovery.rereads), detail: `+${fmtPct(extra)} steps, ${fmtInt(recovery.rereadInputTokens)} tokens` };
}

function summaryColumns(runs: readonly RunResult[]): SummaryColumn[] {
  const withOutcome = (outcome: string): boolean => runs.some((r) => r.config.outcome === outcome && r.summary.referenceRecall);
  const all: SummaryColumn[] = [
    {
      group: 'Runs',
      label: shy('Com-pleted'),
      title: 'runs that replayed every recorded step',
      better: 'max',
      allRows: true,
      cell: (a) => ({ text: `${fmtInt(a.completed)}/${fmtInt(a.runs)}`, value: a.completed / a.runs }),
    },
    {
      group: 'Runs',
      label: shy('Over-flow'),
      title: 'runs whose context exceeded the window',
      cell: (a) => ({ ...intCell(a.overflowed), bad: a.overflowed > 0 }),
    },
    {
      group: 'Runs',
      label: shy('Trun-cated'),
      title: 'runs that replayed every step, but whose prompts the provider cut (it counted far fewer prompt tokens than were sent): the model did not see what the strategy sent',
      show: aggregateRuns(runs).truncated > 0,
      cell: (a) => ({ ...intCell(a.truncated), bad: a.truncated > 0 }),
    },
    {
      group: 'Runs',
      label: 'Other',
      title: 'runs that ended with invalid context, stopped or error',
      show: aggregateRuns(runs).otherFailed > 0,
      cell: (a) => ({ ...intCell(a.otherFailed), title: a.otherStatuses.map((status) => STATUS_TEXT[status]).join(', ') }),
    },
    {
      group: 'What the task kept',
      label: 'Probes passed',
      title: 'planted facts still answerable at the step that needs them: v verbatim in the context, s kept by a summary, r recoverable from the offload store',
      better: 'max',
      cell: (a) => probeCell(a.probes),
    },
    {
      group: 'What the task kept',
      label: 'Ref recall',
      title: 'references the recorded agent used that were still in the context when it used them',
      better: 'max',
      cell: (a) => recallCell(a.referenceRecall, a),
    },
    {
      group: 'What the task kept',
      label: shy('re-solved'),
      title: 'reference recall on scenarios whose recorded task was resolved',
      better: 'max',
      show: withOutcome('resolved'),
      cell: (a) => recallCell(a.recallByOutcome.resolved),
    },
    {
      group: 'What the task kept',
      label: shy('unre-solved'),
      title: 'reference recall on scenarios whose recorded task was not resolved',
      better: 'max',
      show: withOutcome('unresolved'),
      cell: (a) => recallCell(a.recallByOutcome.unresolved),
    },
    {
      group: 'Cost',
      label: 'Input tokens',
      title: 'prompt tokens of every request, auxiliary ones included',
      better: 'min',
      cell: (a) => intCell(a.inputTokens),
    },
    {
      group: 'Cost',
      label: 'Cached',
      title: 'share of input tokens served from the prompt cache (billed at the cached price): the provider’s count on a live backend, n/a when it reports none; on the mock, the tokens that repeat the previous request’s prefix in the same session',
      better: 'max',
      cell: cachedCell,
    },
    {
      group: 'Cost',
      label: shy('Over-head'),
      title: 'prompt and completion tokens of auxiliary calls (summaries, checkpoints): the strategy’s own cost',
      better: 'min',
      cell: (a) => intCell(a.overheadTokens),
    },
    {
      group: 'Cost',
      label: 'Re-reads',
      title: 'reactive replay: requests the agent made to get back what the next recorded turn used and the context had lost (extra steps over the recorded turns, and their input tokens)',
      better: 'min',
      show: runs.some((r) => r.summary.recovery !== undefined),
      cell: (a) => rereadCell(a.recovery),
    },
    {
      group: 'Cost',
      label: 'LLM calls',
      title: 'requests sent: agent steps plus auxiliary calls',
      better: 'min',
      cell: (a) => intCell(a.llmCalls),
    },
    {
      group: 'Cost',
      label: 'Cost',
      title: 'dollars at the price model’s list prices; - when its price is unknown, + when only some runs are priced',
      better: 'min',
      cell: (a) => costCell(a.cost, a.runs),
    },
    {
      group: 'Context',
      label: 'Mean',
      title: 'mean over runs of the mean prompt tokens per agent request, as a share of the window',
      better: 'min',
      cell: (a) => meanCell(a.meanContextPct),
    },
    {
      group: 'Context',
      label: 'Mean peak',
      title: 'mean over runs of the largest prompt, as a share of the window',
      better: 'min',
      cell: (a) => meanCell(a.peakContext.mean),
    },
    { group: 'Context', label: shy('Re-starts'), title: 'new sessions started by the strategy', cell: (a) => intCell(a.restarts) },
    { group: 'Context', label: shy('Ses-sions'), title: 'sessions over all runs', cell: (a) => intCell(a.sessions) },
  ];
  return all.filter((c) => c.show !== false);
}

/**
 * The summary, one row per column of the matrix. The best value of a column is marked among the
 * strategies that completed every run on the same scenarios: a run that stops early spends fewer
 * tokens and has fewer chances to lose a fact, so it would win the cost and success columns by failing.
 */
export function summaryTable(runs: readonly RunResult[], groups: readonly { col: Column; runs: RunResult[] }[]): SummaryTable {
  const columns = summaryColumns(runs);
  const values = groups.map((g) => {
    const aggregate = aggregateRuns(g.runs);
    return columns.map((c) => c.cell(aggregate));
  });
  const signature = (own: readonly RunResult[]): string => own.map((r) => r.config.scenarioId).sort().join('\n');
  const complete = groups.filter((g) => g.runs.every((r) => r.summary.status === 'completed')).map((g) => signature(g.runs));
  // The scenario set most fully completed strategies share.
  const common = complete.sort((a, b) => complete.filter((s) => s === b).length - complete.filter((s) => s === a).length)[0];
  const comparable = groups.map((g) => g.runs.every((r) => r.summary.status === 'completed') && signature(g.runs) === common);
  const comparableCount = comparable.filter(Boolean).length;

  const best = columns.map((column, c) => {
    if (!column.better) return new Set<number>();
    const candidates = groups
      .map((_, row) => row)
      .filter((row) => (column.allRows || comparable[row]) && values[row]![c]!.value !== null && values[row]![c]!.comparable !== false);
    const numbers = candidates.map((row) => values[row]![c]!.value!);
    const top = column.better === 'max' ? Math.max(...numbers) : Math.min(...numbers);
    // Nothing to pick between: fewer than two candidates, or all of them alike.
    if (candidates.length < 2 || numbers.every((n) => n === top)) return new Set<number>();
    return new Set(candidates.filter((row) => values[row]![c]!.value === top));
  });

  const groupRow: { label: string; span: number }[] = [];
  for (const column of columns) {
    const last = groupRow.at(-1);
    if (last?.label === column.group) last.span += 1;
    else groupRow.push({ label: column.group, span: 1 });
  }
  const bestNote =
    comparableCount >= 2
      ? `Green: the best of a column (most completed, kept or cached; fewest tokens, calls, dollars, context), among the ${fmtInt(comparableCount)} strategies that completed every run on the same scenarios; one that stops early spends less and loses less.`
      : 'Green: the most completed. No two strategies completed every run on the same scenarios, so nothing else is compared: one that stops early spends less and loses less.';

  return {
    groups: groupRow,
    columns: columns.map((column, c) => ({
      index: c + 1,
      label: column.label,
      title: column.title,
      first: column.better === 'min' ? 'asc' : 'desc',
    })),
    rows: groups.map(({ col }, row) => ({
      ...col,
      cells: values[row]!.map((v, c) => ({
        text: v.text,
        detail: v.detail ?? '',
        title: v.title ?? '',
        sort: v.value === null ? '' : String(v.value),
        best: best[c]!.has(row),
        bad: v.bad ?? false,
      })),
    })),
    bestNote,
  };
}
