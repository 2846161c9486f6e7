/**
 * Parameter grids for `bench sweep`: `--grid name=from:to:step` (a numeric range, both ends included)
 * or `--grid name=v1,v2,...`. The sweep runs every combination, the first axis varying slowest. Each
 * value is checked against the parameter's range before anything runs.
 */
import { CtxbenchError } from './errors.js';
import { describeRange, parseValue, type ParamAssignment, type ParamSpecs } from './params.js';

export interface GridAxis {
  readonly raw: string;
  readonly name: string;
  /** As written (a range expanded, rounded to its step's decimals): parsed later like a --param value. */
  readonly values: readonly string[];
}

/** More than this is a typo in a range, not a sweep anyone waits for. */
export const MAX_CONFIGURATIONS = 500;

const badGrid = (raw: string, problem: string): CtxbenchError => new CtxbenchError('OPTION_INVALID', `--grid ${raw}: ${problem}`);
const NUMBER = '-?\\d+(?:\\.\\d+)?';
const RANGE = new RegExp(`^(${NUMBER}):(${NUMBER}):(${NUMBER})$`);
const decimals = (text: string): number => text.split('.')[1]?.length ?? 0;

function expandRange(raw: string, from: string, to: string, step: string): string[] {
  const [a, b, s] = [Number(from), Number(to), Number(step)];
  if (!(s > 0)) throw badGrid(raw, `the step must be above 0 (from:to:step)`);
  if (a > b) throw badGrid(raw, `the range runs from ${from} up to ${to}: the first must not exceed the second`);
  const places = Math.max(decimals(from), decimals(to), decimals(step));
  const count = Math.floor((b - a) / s + 1e-9) + 1;
  if (count > MAX_CONFIGURATIONS) throw badGrid(raw, `${count} values; at most ${MAX_CONFIGURATIONS}`);
  // Computed from the start each time and rounded to the written decimals: 0.1 steps stay 0.1 steps.
  return Array.from({ length: count }, (_, i) => String(Number((a + i * s).toFixed(places))));
}

/** One `--grid` flag, its values checked against `owner`'s parameter `name`. */
export function parseGridAxis(raw: string, owner: string, specs: ParamSpecs): GridAxis {
  const eq = raw.indexOf('=');
  if (eq <= 0) throw badGrid(raw, 'expected name=from:to:step or name=v1,v2,... (e.g. softThreshold=0.5:0.9:0.1)');
  const name = raw.slice(0, eq).trim();
  const text = raw.slice(eq + 1).trim();
  const spec = Object.hasOwn(specs, name) ? specs[name] : undefined;
  if (!spec) throw badGrid(raw, `${owner} has no parameter "${name}" (its parameters: ${Object.keys(specs).join(', ') || 'none'})`);
  if (new RegExp(`^${NUMBER}:${NUMBER}$`).test(text)) throw badGrid(raw, `a range needs its step: from:to:step (e.g. ${name}=${text}:0.1)`);
  const range = RANGE.exec(text);
  const values = range ? expandRange(raw, range[1]!, range[2]!, range[3]!) : text.split(',').map((v) => v.trim());
  for (const value of values) {
    if (value === '' || parseValue(spec, value) === undefined) throw badGrid(raw, `${owner}.${name} must be ${describeRange(spec)} (got "${value}")`);
  }
  if (new Set(values).size < values.length) throw badGrid(raw, 'a value is listed twice');
  return { raw, name, values };
}

/** Every combination of the axes' values as --param assignments, the first axis varying slowest. */
export function expandGrid(axes: readonly GridAxis[]): ParamAssignment[][] {
  const names = axes.map((a) => a.name);
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice !== undefined) throw new CtxbenchError('OPTION_INVALID', `--grid: ${twice} is swept twice; give its values in one --grid`);
  const total = axes.reduce((n, a) => n * a.values.length, 1);
  if (total > MAX_CONFIGURATIONS) throw new CtxbenchError('OPTION_INVALID', `--grid: ${total} combinations; at most ${MAX_CONFIGURATIONS} (fewer values or a coarser step)`);
  return axes.reduce<ParamAssignment[][]>(
    (combos, axis) => combos.flatMap((combo) => axis.values.map((value) => [...combo, { raw: `${axis.name}=${value}`, name: axis.name, value }])),
    [[]],
  );
}
