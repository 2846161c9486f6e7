/** A column of a matrix: a strategy (or a preset of one) with its parameters, run on every scenario. */
import type { Params } from '../core/params.js';
import type { StrategyDefinition } from '../core/strategy.js';
import type { StrategyFile } from './strategy-file.js';

export interface MatrixEntry {
  readonly strategy: StrategyDefinition;
  /** Set when the entry is a preset of `strategy`: runs are stored under this name. */
  readonly preset?: string | undefined;
  readonly params: Params;
  /** A sweep's setting of the swept parameters ("softThreshold=0.6,carryoverTurns=3"), when one. */
  readonly variant?: string | undefined;
  /** The file of an outside strategy (`--strategy ./x.ts`): its runs are labelled with it, worker threads load it again. */
  readonly file?: StrategyFile | undefined;
}
