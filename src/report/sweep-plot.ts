/**
 * A sweep's success against each swept parameter: one small chart per parameter of a strategy that
 * ran at several settings, a line per setting of its other swept parameters. Lines rather than a mean
 * over the others, so a parameter that helps only at some setting of another shows as lines that part
 * instead of being averaged away. Success is the Pareto point's, so the charts read as the table does.
 */
import type { ParamValue, Params } from '../core/params.js';
import type { RunResult } from '../core/run-records.js';
import { columnStyle, type Column } from './columns.js';
import { distinct } from './format.js';
import type { Pareto } from './pareto.js';

export interface SweepPoint {
  /** The parameter's value, or its place among the categories. */
  readonly x: number;
  readonly success: number;
  readonly successText: string;
  /** The configuration's label and colour, as the tables and the Pareto chart show it. */
  readonly label: string;
  readonly color: string;
  readonly recommended: boolean;
}

export interface SweepSeries {
  /** The setting of the other swept parameters ("carryoverTurns=3"), or "" when there are none. */
  readonly label: string;
  readonly dash: readonly number[];
  /** By x. */
  readonly points: SweepPoint[];
}

export interface SweepPlot {
  readonly domId: string;
  readonly strategy: string;
  readonly parameter: string;
  /** Null for numbers (a numeric axis); choices and booleans as categories in grid order, at x = 0, 1, .... */
  readonly categories: string[] | null;
  readonly series: SweepSeries[];
  readonly caption: string;
}

interface Setting {
  readonly col: Column;
  readonly point: Pareto['points'][number];
  readonly strategy: string;
  readonly params: Params;
}

const settingText = (params: Params, keys: readonly string[]): string => keys.map((k) => `${k}=${String(params[k])}`).join(', ');

/** One plot per swept parameter of each strategy that ran at several settings, in column (grid) order. */
export function sweepPlotsOf(groups: readonly { col: Column; runs: readonly RunResult[] }[], pareto: Pareto): SweepPlot[] {
  const pointOf = new Map(pareto.points.map((p) => [p.label, p]));
  const settings = groups.flatMap(({ col, runs }): Setting[] => {
    const point = pointOf.get(col.label);
    const run = runs[0];
    return point && run ? [{ col, point, strategy: run.config.strategy, params: run.config.params }] : [];
  });
  const plots = distinct(settings.map((s) => s.strategy)).flatMap((strategy) => {
    const own = settings.filter((s) => s.strategy === strategy);
    const swept = distinct(own.flatMap((s) => Object.keys(s.params))).filter(
      (k) => own.every((s) => s.params[k] !== undefined) && distinct(own.map((s) => String(s.params[k]))).length > 1,
    );
    // Two configurations at one setting (differing in model or window too) have no one place on the axes.
    if (swept.length === 0 || distinct(own.map((s) => settingText(s.params, swept))).length < own.length) return [];
    return swept.map((parameter) => plotOf(strategy, parameter, swept, own));
  });
  return plots.map((plot, i) => ({ ...plot, domId: `sweep-${i}` }));
}

function plotOf(strategy: string, parameter: string, swept: readonly string[], own: readonly Setting[]): Omit<SweepPlot, 'domId'> {
  const others = swept.filter((k) => k !== parameter);
  const values: ParamValue[] = distinct(own.map((s) => s.params[parameter]!));
  const numeric = values.every((v) => typeof v === 'number');
  const xOf = (v: ParamValue): number => (numeric ? (v as number) : values.indexOf(v));
  const series = distinct(own.map((s) => settingText(s.params, others))).map((label, i) => ({
    label,
    dash: columnStyle(i).dash,
    points: own
      .filter((s) => settingText(s.params, others) === label)
      .map((s) => ({
        x: xOf(s.params[parameter]!),
        success: s.point.success,
        successText: s.point.successText,
        label: s.col.label,
        color: s.col.color,
        recommended: s.point.recommended,
      }))
      .sort((a, b) => a.x - b.x),
  }));
  const lines = others.length ? `; a line per setting of ${others.join(' and ')} (not their mean)` : '';
  return {
    strategy,
    parameter,
    categories: numeric ? null : values.map(String),
    series,
    caption: `${strategy}: success (the mean over the scenarios compared, as in the table) against ${parameter}${lines}. Points in each configuration’s colour; ringed: the recommended default.`,
  };
}
