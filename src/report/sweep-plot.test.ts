import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RunResult } from '../core/run-records.js';
import { sampleRuns, sweepRuns } from '../../test/helpers/report-fixtures.js';
import { columnsOf, runsByColumn } from './columns.js';
import { paretoOf } from './pareto.js';
import { sweepPlotsOf } from './sweep-plot.js';

const plotsOf = (runs: readonly RunResult[]) => {
  const groups = runsByColumn(columnsOf(runs), runs);
  const pareto = paretoOf(groups);
  return { plots: sweepPlotsOf(groups, pareto), pareto };
};

describe('sweepPlotsOf', () => {
  it('gives a plot per swept parameter, a line per setting of the others, success as the Pareto table has it', () => {
    const { plots, pareto } = plotsOf(
      sweepRuns([
        [{ softThreshold: 0.5, carryoverTurns: 3, mode: 'a' }, 1],
        [{ softThreshold: 0.5, carryoverTurns: 10, mode: 'a' }, 2],
        [{ softThreshold: 0.7, carryoverTurns: 3, mode: 'a' }, 3],
        [{ softThreshold: 0.7, carryoverTurns: 10, mode: 'a' }, 4],
      ]),
    );
    expect(plots.map((p) => [p.domId, p.parameter, p.categories])).toEqual([
      ['sweep-0', 'softThreshold', null],
      ['sweep-1', 'carryoverTurns', null],
    ]);
    const [soft] = plots;
    expect(soft!.series.map((s) => s.label)).toEqual(['carryoverTurns=3', 'carryoverTurns=10']);
    expect(soft!.series[1]!.points.map((p) => [p.x, p.success, p.successText])).toEqual([[0.5, 0.5, '50.0%'], [0.7, 1, '100.0%']]);
    expect(soft!.caption).toContain('a line per setting of carryoverTurns (not their mean)');
    const recommended = plots.flatMap((p) => p.series.flatMap((s) => s.points.filter((q) => q.recommended).map((q) => q.label)));
    expect(recommended).toEqual([pareto.recommended, pareto.recommended]);
  });

  it('puts choices and booleans on a category axis in grid order', () => {
    const { plots } = plotsOf(sweepRuns([[{ mode: 'lru', on: true }, 4], [{ mode: 'fifo', on: false }, 2], [{ mode: 'lru', on: false }, 3], [{ mode: 'fifo', on: true }, 1]]));
    expect(plots.map((p) => p.categories)).toEqual([['lru', 'fifo'], ['true', 'false']]);
    expect(plots[0]!.series.map((s) => [s.label, s.points.map((p) => p.x)])).toEqual([['on=true', [0, 1]], ['on=false', [0, 1]]]);
  });

  it('draws nothing for a strategy that ran at one setting only', () => {
    expect(plotsOf(sampleRuns()).plots).toEqual([]);
  });

  it('places every stored setting exactly once in each of its strategy’s plots', () => {
    const grid = fc.uniqueArray(fc.tuple(fc.integer({ min: 1, max: 4 }), fc.constantFrom('a', 'b', 'c'), fc.integer({ min: 0, max: 4 })), {
      minLength: 2,
      maxLength: 12,
      selector: ([n, c]) => `${n}${c}`,
    });
    fc.assert(
      fc.property(grid, (settings) => {
        const runs = sweepRuns(settings.map(([n, c, passed]) => [{ keep: n, mode: c }, passed] as const));
        const { plots } = plotsOf(runs);
        const labels = columnsOf(runs).columns.map((c) => c.label).sort();
        for (const plot of plots) {
          const points = plot.series.flatMap((s) => s.points);
          expect(points.map((p) => p.label).sort()).toEqual(labels);
          for (const s of plot.series) expect(s.points.map((p) => p.x)).toEqual([...s.points.map((p) => p.x)].sort((a, b) => a - b));
        }
        const swept = ['keep', 'mode'].filter((k) => new Set(settings.map(([n, c]) => (k === 'keep' ? n : c))).size > 1);
        expect(plots.map((p) => p.parameter)).toEqual(swept);
      }),
    );
  });
});
