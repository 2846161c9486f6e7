/**
 * The check every request of a replay passes before it is sent, as a provider would make it: a
 * context that breaks tool-call pairing is refused (the agent's ends the run, an auxiliary call's
 * fails that call); an admitted context's size is counted for the caller to hold against the window.
 */
import type { Message } from '../core/messages.js';
import { createPairingGuard, describeViolations } from '../core/pairing.js';
import { AuxiliaryCallError } from '../core/strategy.js';
import { countRequest, type TokenCounter } from '../core/tokens.js';
import { RunEnded, type RunLog } from './run-log.js';

/**
 * Checks a context's pairing and returns its local token count as sent (the tool definitions counted
 * when the request sends them: countRequest); throws RunEnded for the agent's request,
 * AuxiliaryCallError for another's. `recordedPrefix`: the context is a prefix of the recorded
 * history, validated when the scenario was loaded (default false).
 */
export type Admit = (context: readonly Message[], purpose: string, recordedPrefix?: boolean) => number;

/** The admission check of one run: it sees the run's contexts one after another. */
export function createAdmit(counter: TokenCounter, log: RunLog): Admit {
  const checkPairing = createPairingGuard(); // consecutive contexts: checked in time linear in what changed
  return (context, purpose, recordedPrefix = false) => {
    const violations = recordedPrefix ? [] : checkPairing(context, { request: true });
    if (violations.length > 0) {
      const detail = `${purpose} request: ${describeViolations(violations)}`;
      if (purpose === 'agent') throw new RunEnded('invalid_context', detail);
      log.record([{ kind: 'pairing_violation', detail }]);
      throw new AuxiliaryCallError('invalid_context', detail);
    }
    return countRequest(counter, context, purpose);
  };
}
