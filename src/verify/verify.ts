/**
 * `bench verify`: the properties (properties.ts) run by fast-check over generated cases against one
 * strategy at one parameter setting. A failing property is shrunk to a small case: what is reported
 * is the shrunk counterexample's broken rule and messages.
 */
import fc from 'fast-check';
import type { Params } from '../core/params.js';
import type { StrategyDefinition } from '../core/strategy.js';
import type { TokenCounter } from '../core/tokens.js';
import type { HookClock } from '../runner/strategy-guard.js';
import { triggerOf, workload } from './generators.js';
import type { VerifyCase } from './observe.js';
import { checkCase, PROPERTIES, type Broken, type Property } from './properties.js';

/** Generated cases for one parameter setting (or any, from `params`). */
export function verifyCases(params: fc.Arbitrary<Params>, triggerTokens = 0): fc.Arbitrary<VerifyCase> {
  const { history, window } = workload(triggerTokens);
  return fc.record({ scenario: history, params, window, reactive: fc.boolean() });
}

export interface VerifyOptions {
  readonly strategy: StrategyDefinition;
  readonly params: Params;
  readonly counter: TokenCounter;
  /** Cases per property. */
  readonly runs: number;
  readonly seed: number;
  /** Seconds a hook call may take before its replay ends with status error. */
  readonly strategyTimeout: number;
  /** Where hook calls are published for a watchdog on another thread (verify-thread.ts). */
  readonly hookClock?: HookClock | undefined;
  /** Default: every property. */
  readonly properties?: readonly Property[];
  /** Called before each property is checked. */
  readonly onProperty?: (property: Property, index: number, total: number) => void;
}

/** A property's outcome; a failure carries the shrunk case and what it broke. */
export interface PropertyOutcome {
  readonly property: Property;
  /** Cases tried before the first failure (all of them when it passed). */
  readonly cases: number;
  /** `case` is unknown when the watchdog stopped the thread in the middle of one (verify-thread.ts). */
  readonly failure?: { readonly broken: Broken; readonly case?: VerifyCase | undefined; readonly shrinks: number } | undefined;
  /** Not checked: the thread was stopped while an earlier property was checked. */
  readonly notChecked?: boolean | undefined;
}

/** Thrown inside a property so fast-check sees the case fail; it carries what broke. */
class BrokenRule extends Error {
  constructor(readonly broken: Broken) {
    super(broken.rule);
  }
}

/**
 * Replays spent on shrinking one failure. Each shrink candidate is a whole replay, and a late failure
 * in a long case has thousands of them (a minute and a half here); past the budget every candidate is
 * let pass, so fast-check stops at the smallest failing case found so far. Counted, not timed: the same
 * seed gives the same counterexample on any machine.
 */
export const SHRINK_BUDGET = 1_500;

/** Checks each property in turn with the same seed; every one runs, whatever the others found. */
export async function verifyStrategy(options: VerifyOptions): Promise<PropertyOutcome[]> {
  const { strategy, params, counter, runs, seed, strategyTimeout, hookClock } = options;
  const properties = options.properties ?? PROPERTIES;
  const cases = verifyCases(fc.constant(params), triggerOf(params));
  const outcomes: PropertyOutcome[] = [];
  for (const [index, property] of properties.entries()) {
    options.onProperty?.(property, index, properties.length);
    let replaysSinceFailure: number | undefined;
    const run = fc.asyncProperty(cases, async (c) => {
      if (replaysSinceFailure !== undefined && ++replaysSinceFailure > SHRINK_BUDGET) return;
      const broken = await checkCase(property, strategy, c, counter, strategyTimeout, hookClock);
      if (!broken) return;
      replaysSinceFailure ??= broken.timedOut ? SHRINK_BUDGET : 0;
      throw new BrokenRule(broken);
    });
    const details = await fc.check(run, { numRuns: runs, seed });
    if (!details.failed || details.counterexample === null) {
      outcomes.push({ property, cases: details.numRuns });
      continue;
    }
    const [shrunk] = details.counterexample;
    // fast-check keeps the error of the last failing run: the shrunk case's. Anything else thrown is a bug here or in the runner.
    const error = details.errorInstance;
    const broken = error instanceof BrokenRule ? error.broken : { rule: `the check itself failed: ${error instanceof Error ? error.message : String(error)}` };
    outcomes.push({ property, cases: details.numRuns, failure: { broken, case: shrunk, shrinks: details.numShrinks } });
  }
  return outcomes;
}
