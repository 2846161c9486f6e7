/**
 * The summary: one row per run configuration, one column per metric (completion, what the task
 * kept, cost, context), each cell with the number it sorts by and the best of a column marked.
 */
import { probesPassed } from '../metrics/probe-verdict.js';
import type { RunResult, RunStatus } from '../core/run-records.js';
import type { Column } from './columns.js';
import { STATUS_TEXT, distinct, dollars, fmtInt, fmtPct, peakFraction, roundPct, shy, sum } from './format.js';

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
  cell(runs: readonly RunResult[]): CellValue;
}

const pctCell = (part: number, whole: number, title = ''): CellValue =>
  whole === 0 ? { text: '—', value: null, title } : { text: fmtPct(part / whole), value: roundPct(part / whole), title };
const intCell = (n: number): CellValue => ({ text: fmtInt(n), value: n });

/** Probes still answerable at their step / probes asked (unreached ones count as lost). */
export function probeCell(runs: readonly RunResult[]): CellValue & { passed: number; total: number } {
  const total = sum(runs, (r) => r.summary.probes.total);
  const [v, s, r] = (['verbatim', 'summary', 'recoverable'] as const).map((k) => sum(runs, (run) => run.summary.probes[k])) as [number, number, number];
  const passed = sum(runs, (run) => probesPassed(run.summary.probes));
  if (total === 0) return { text: '—', value: null, passed, total };
  const asked = runs.some((run) => run.summary.probes.answered !== undefined);
  const where = `${v} verbatim in the context, ${s} kept by a summary, ${r} recoverable from the offload store`;
  return {
    text: `${fmtInt(passed)}/${fmtInt(total)}`,
    value: passed / total,
    detail: `${asked ? 'answered; ' : ''}v${v} s${s} r${r}`,
    title: asked ? `${passed} answered correctly by the model; in the context: ${where}` : `${where}, ${total - passed} lost`,
    passed,
    total,
  };
}

export const recallCell = (runs: readonly RunResult[]): CellValue =>
  pctCell(
    sum(runs, (r) => r.summary.referenceRecall?.present ?? 0),
    sum(runs, (r) => r.summary.referenceRecall?.total ?? 0),
  );

function costCell(runs: readonly RunResult[]): CellValue {
  const known = runs.filter((r) => r.summary.costUsd !== undefined);
  if (known.length === 0) return { text: '-', value: null, title: 'no price known for the price model' };
  const total = sum(known, (r) => r.summary.costUsd!);
  const text = dollars(total);
  if (known.length === runs.length) return { text, value: Number(text.slice(1)) };
  return { text: `${text}+`, value: Number(text.slice(1)), comparable: false, title: `${known.length} of ${runs.length} runs priced` };
}


function summaryColumns(runs: readonly RunResult[]): SummaryColumn[] {
  const withOutcome = (outcome: string): boolean => runs.some((r) => r.config.outcome === outcome && r.summary.referenceRecall);
  const count = (own: readonly RunResult[], status: RunStatus): number => own.filter((r) => r.summary.status === status).length;
  const all: SummaryColumn[] = [
    {
      group: 'Runs',
      label: shy('Com-pleted'),
      title: 'runs that replayed every recorded step',
      better: 'max',
      allRows: true,
      cell: (own) => ({ text: `${fmtInt(count(own, 'completed'))}/${fmtInt(own.length)}`, value: count(own, 'completed') / own.length }),
    },
    {
      group: 'Runs',
      label: shy('Over-flow'),
      title: 'runs whose context exceeded the window',
      cell: (own) => ({ ...intCell(count(own, 'overflow')), bad: count(own, 'overflow') > 0 }),
    },
    {
      group: 'Runs',
      label: 'Other',
      title: 'runs that ended with invalid context, stopped or error',
      show: runs.some((r) => r.summary.status !== 'completed' && r.summary.status !== 'overflow'),
      cell: (own) => {
        const other = own.filter((r) => r.summary.status !== 'completed' && r.summary.status !== 'overflow');
        return { ...intCell(other.length), title: distinct(other.map((r) => STATUS_TEXT[r.summary.status])).join(', ') };
      },
    },
    {
      group: 'What the task kept',
      label: 'Probes passed',
      title: 'planted facts still answerable at the step that needs them: v verbatim in the context, s kept by a summary, r recoverable from the offload store',
      better: 'max',
      cell: probeCell,
    },
    {
      group: 'What the task kept',
      label: 'Ref recall',
      title: 'references the recorded agent used that were still in the context when it used them',
      better: 'max',
      cell: recallCell,
    },
    {
      group: 'What the task kept',
      label: shy('re-solved'),
      title: 'reference recall on scenarios whose recorded task was resolved',
      better: 'max',
      show: withOutcome('resolved'),
      cell: (own) => recallCell(own.filter((r) => r.config.outcome === 'resolved')),
    },
    {
      group: 'What the task kept',
      label: shy('unre-solved'),
      title: 'reference recall on scenarios whose recorded task was not resolved',
      better: 'max',
      show: withOutcome('unresolved'),
      cell: (own) => recallCell(own.filter((r) => r.config.outcome === 'unresolved')),
    },
    {
      group: 'Cost',
      label: 'Input tokens',
      title: 'prompt tokens of every request, auxiliary ones included',
      better: 'min',
      cell: (own) => intCell(sum(own, (r) => r.summary.inputTokens)),
    },
    {
      group: 'Cost',
      label: 'Cached',
      title: 'share of input tokens that repeat the previous request’s prefix in the same session (prompt-cache hits, billed at the cached price)',
      better: 'max',
      cell: (own) => pctCell(sum(own, (r) => r.summary.cachedInputTokens), sum(own, (r) => r.summary.inputTokens)),
    },
    {
      group: 'Cost',
      label: shy('Over-head'),
      title: 'prompt and completion tokens of auxiliary calls (summaries, checkpoints): the strategy’s own cost',
      better: 'min',
      cell: (own) => intCell(sum(own, (r) => r.summary.overheadTokens)),
    },
    {
      group: 'Cost',
      label: 'LLM calls',
      title: 'requests sent: agent steps plus auxiliary calls',
      better: 'min',
      cell: (own) => intCell(sum(own, (r) => r.summary.llmCalls)),
    },
    {
      group: 'Cost',
      label: 'Cost',
      title: 'dollars at the price model’s list prices; - when its price is unknown, + when only some runs are priced',
      better: 'min',
      cell: costCell,
    },
    {
      group: 'Context',
      label: 'Mean',
      title: 'mean over runs of the mean prompt tokens per agent request, as a share of the window',
      better: 'min',
      cell: (own) => {
        const mean = sum(own, (r) => r.summary.meanContextPct) / own.length;
        return { text: fmtPct(mean), value: roundPct(mean) };
      },
    },
    {
      group: 'Context',
      label: 'Mean peak',
      title: 'mean over runs of the largest prompt, as a share of the window',
      better: 'min',
      cell: (own) => {
        const mean = sum(own, peakFraction) / own.length;
        return { text: fmtPct(mean), value: roundPct(mean) };
      },
    },
    { group: 'Context', label: shy('Re-starts'), title: 'new sessions started by the strategy', cell: (own) => intCell(sum(own, (r) => r.summary.restarts)) },
    { group: 'Context', label: shy('Ses-sions'), title: 'sessions over all runs', cell: (own) => intCell(sum(own, (r) => r.summary.sessions)) },
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
  const values = groups.map((g) => columns.map((c) => c.cell(g.runs)));
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
