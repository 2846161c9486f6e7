/**
 * `bench sweep`: runs a strategy (or preset) at every setting of a parameter grid, or several
 * strategies and presets side by side, then prints the cost-vs-success Pareto front and the
 * recommended default with the rule that picked it (the report shows the same chart).
 */
import { CtxbenchError } from '../../core/errors.js';
import { columnsOf, runsByColumn } from '../../report/columns.js';
import { paretoOf, SUCCESS_DEFINITION } from '../../report/pareto.js';
import type { MatrixEntry } from '../../runner/matrix-entry.js';
import type { RunResult } from '../../core/run-records.js';
import { expandGrid, parseGridAxis } from '../../core/param-grid.js';
import { selectStrategies, type StrategySelection } from '../../runner/strategy-file.js';
import { parseAssignment, resolveParams, type ParamAssignment } from '../../core/params.js';
import { formatTable } from '../table.js';
import type { MatrixCommandContext } from '../matrix-command.js';
import { entryOf, paramOwner, runEntries, type RunOptions } from './run.js';

export interface SweepOptions extends RunOptions {
  readonly grid: string[];
}

export async function sweepCommand(options: SweepOptions, context: MatrixCommandContext): Promise<void> {
  const selections = await selectStrategies(options.strategy, options.preset);
  const entries = options.grid.length === 0 ? sideBySide(selections, options) : gridEntries(selections, options);
  await runEntries(options, entries, context, { kind: 'sweep', epilogue: paretoSummary });
}

/** No grid: every selected strategy and preset is one configuration (e.g. the presets against each other). */
function sideBySide(selections: readonly StrategySelection[], options: SweepOptions): MatrixEntry[] {
  if (selections.length < 2) {
    throw new CtxbenchError('OPTION_INVALID', '--grid: give the parameter values to sweep (e.g. --grid softThreshold=0.5:0.9:0.1), or several strategies or presets to compare');
  }
  const params = resolveParams(selections.map(paramOwner), options.param.map(parseAssignment));
  return selections.map((s) => entryOf(s, params.get(s.name)!));
}

/**
 * One strategy or preset at every combination of the grid, on top of its --param settings. A setting
 * the strategy refuses (e.g. a soft threshold above the hard one) is skipped with a warning; the
 * sweep fails only when it refuses them all.
 */
function gridEntries(selections: readonly StrategySelection[], options: SweepOptions): MatrixEntry[] {
  if (selections.length !== 1) {
    throw new CtxbenchError('OPTION_INVALID', `--grid sweeps one strategy or preset; ${selections.length} are selected (${selections.map((s) => s.name).join(', ')})`);
  }
  const [selection] = selections as [StrategySelection];
  const axes = options.grid.map((raw) => parseGridAxis(raw, selection.name, selection.strategy.params));
  const fixed = options.param.map(parseAssignment);
  // Each setting of the grid would override the fixed value: say so rather than drop it.
  const owners = [undefined, selection.name, selection.strategy.name];
  const both = fixed.find((p) => owners.includes(p.strategy) && axes.some((a) => a.name === p.name));
  if (both) throw new CtxbenchError('OPTION_INVALID', `--param ${both.raw}: ${both.name} is swept by --grid too; give it to one of them`);
  const entries: MatrixEntry[] = [];
  const refused: string[] = [];
  for (const combo of expandGrid(axes)) {
    const variant = combo.map((a) => a.raw).join(',');
    const params = settingParams(selection, fixed, combo);
    if (typeof params === 'string') refused.push(`${variant}: ${params}`);
    else entries.push(entryOf(selection, params, variant));
  }
  if (entries.length === 0) throw new CtxbenchError('PARAM_INVALID', `--grid: ${selection.name} refuses every setting of the grid, e.g. ${refused[0]}`);
  if (refused.length > 0) {
    process.stderr.write(`bench: warning: ${refused.length} of ${refused.length + entries.length} settings skipped, ${selection.name} refuses them: ${refused.join('; ')}\n`);
  }
  return entries;
}

/** The parameters of one grid setting, or why the strategy refuses them. */
function settingParams(selection: StrategySelection, fixed: readonly ParamAssignment[], combo: readonly ParamAssignment[]) {
  try {
    return resolveParams([paramOwner(selection)], [...fixed, ...combo]).get(selection.name)!;
  } catch (error) {
    if (error instanceof CtxbenchError && error.code === 'PARAM_INVALID') return error.message.replace(/^--param: [^:]+: /, '');
    throw error;
  }
}

/** Every configuration's cost and success, cheapest first, the front and the recommendation marked. */
export function paretoSummary(runs: readonly RunResult[]): string {
  const pareto = paretoOf(runsByColumn(columnsOf(runs), [...runs]));
  const table = formatTable(
    [{ header: 'configuration' }, { header: pareto.axis === 'dollars' ? 'cost' : 'billed input', align: 'right' }, { header: 'success', align: 'right' }, { header: 'Pareto front' }],
    pareto.points.map((p) => [p.label, p.costText, p.successText, p.recommended ? 'yes: recommended' : p.front ? 'yes' : '']),
  );
  return [`Cost vs success (${SUCCESS_DEFINITION})`, '', table, '', pareto.recommended === null ? pareto.rule : `Recommended default: ${pareto.rule}`, ...(pareto.note ? [pareto.note] : [])].join('\n');
}
