/**
 * The project's invariants as properties of a strategy, judged on replays of generated cases
 * (observe.ts): what `bench verify` checks an outside strategy against, and what the property tests
 * prove for every built-in. Each judge returns what broke (the rule, the step, the request's
 * messages), or undefined when the case keeps the rule.
 */
import type { Message } from '../core/messages.js';
import { checkOrder, checkPairing, describeViolations } from '../core/pairing.js';
import type { StrategyDefinition } from '../core/strategy.js';
import { countRequest, type TokenCounter } from '../core/tokens.js';
import { isTimeoutFailure, type HookClock } from '../runner/strategy-guard.js';
import { observe, type Observation, type VerifyCase } from './observe.js';

/** What a case broke. */
export interface Broken {
  readonly rule: string;
  /** The agent step it broke at, when it is one step's. */
  readonly step?: number | undefined;
  /** "agent", or a helper request's purpose. */
  readonly purpose?: string | undefined;
  /** The messages of that request. */
  readonly messages?: readonly Message[] | undefined;
  /** A hook that did not answer in time: each smaller case tried would wait as long, so it is not shrunk. */
  readonly timedOut?: boolean | undefined;
}

export interface Property {
  /** Short, for flags and JSON: "pairing". */
  readonly name: string;
  /** One line: what it holds. */
  readonly title: string;
  /** Replays of one case it needs (determinism compares two). */
  readonly replays: 1 | 2;
  judge(c: VerifyCase, seen: readonly Observation[], counter: TokenCounter): Broken | undefined;
}

/**
 * A replay the strategy ended by throwing, or that the runner ended with status error (create threw, a
 * hook returned no plan or a malformed one, or did not answer in time): the case cannot keep any rule.
 */
function threw({ thrown, run, wroteFrozen }: Observation): Broken | undefined {
  if (thrown === undefined) {
    if (run?.summary.status !== 'error' || wroteFrozen) return undefined;
    const failure = run.summary.failure ?? 'no reason given';
    return { rule: `the run ended in an error: ${failure}`, step: run.summary.failedStep, timedOut: isTimeoutFailure(failure) };
  }
  const where = thrown.step >= 0 ? ` at step ${thrown.step} (${thrown.hook})` : '';
  return { rule: `the strategy threw${where}: ${thrown.message}`, ...(thrown.step >= 0 ? { step: thrown.step } : {}) };
}

/**
 * (a) Pairing, design INVARIANT: every context the strategy asks to send, agent requests and helper
 * requests (summaries, checkpoints, continuations) alike, seen as it asks for them (so one the runner
 * refuses counts too), is well-paired as a request (rules 1-3) and keeps the history's order with the
 * system prompt first (rule 4). The reactive agent's re-reads are its own exchanges, after the history
 * they recover from: rule 4 applies to the recorded messages.
 */
export const pairing: Property = {
  name: 'pairing',
  title: 'every request sent, helper requests included, is well-paired and in history order',
  replays: 1,
  judge({ scenario }, [seen]) {
    // First: a replay that ended in an error may have asked for what is no message list at all.
    const broken = threw(seen!);
    if (broken) return broken;
    for (const { purpose, step, messages } of seen!.asked) {
      const violations = checkPairing(messages, { request: true });
      const order = checkOrder(scenario.messages, messages.filter((m) => !m.id.startsWith('reread-')));
      if (violations.length > 0 || order !== undefined) return { rule: violations.length > 0 ? describeViolations(violations) : `order: ${order}`, step, purpose, messages };
    }
    return undefined;
  },
};

/**
 * (b) No in-place edits (src/core/strategy.ts): a strategy drops, replaces (same id, new object) or
 * inserts messages; it never changes a message it was given or has sent, nor the list a hook was given.
 * The runner freezes every recorded message, so a write to one throws (in strict mode, as every ES
 * module is); a message the strategy made and later changed, or a list it changed, is caught by
 * comparing each with what it was when first seen.
 */
export const inPlace: Property = {
  name: 'in-place',
  title: 'no message, and no list a hook is given, is changed in place',
  replays: 1,
  judge(_c, [seen]) {
    const edit = seen!.edits[0];
    if (edit) return { rule: `in-place edit in ${edit.hook}: ${edit.detail}`, step: edit.step, purpose: `given to ${edit.hook}`, messages: edit.given };
    return threw(seen!);
  },
};

/**
 * (c) The context fits after a compaction, as far as the built-ins guarantee it: every request the
 * backend received, agent or helper, is within the window by the runner's count; and an agent context
 * over the window (after a compaction or not) ends the run at that step with status `overflow`, as a
 * provider would refuse it (or `invalid_context`, when its pairing was refused first): the run never
 * goes on, completes, stops or errs past it, and ends as an overflow only on a context over the window. Not asked, because
 * the built-ins do not keep it: that a compaction makes the context smaller (a placeholder can outweigh
 * an empty result, a summary a short span) or brings it under the window (no strategy that keeps the
 * newest, unseen results can fit a window smaller than they are).
 */
export const fits: Property = {
  name: 'fits',
  title: 'every request sent fits the window; a context over it ends the run there as an overflow',
  replays: 1,
  judge({ window }, [seen], counter) {
    const { run, received, asked } = seen!;
    for (const request of received) {
      const tokens = countRequest(counter, request.messages, request.purpose);
      if (tokens > window) return { rule: `a ${request.purpose} request of ${tokens} tokens was sent over the ${window}-token window`, purpose: request.purpose, messages: request.messages };
    }
    const broken = threw(seen!);
    if (broken || !run) return broken;
    const agent = asked.filter((a) => a.purpose === 'agent');
    const over = agent.find((a) => countRequest(counter, a.messages, 'agent') > window);
    // A context the runner refused first for its pairing (invalid_context) ended there too: that rule is pairing's.
    if (over && (!['overflow', 'invalid_context'].includes(run.summary.status) || run.summary.failedStep !== over.step)) {
      const ended = `${run.summary.status}${run.summary.failedStep === undefined ? '' : ` at step ${run.summary.failedStep}`}`;
      return { rule: `a context over the ${window}-token window did not end the run as an overflow (it ended ${ended})`, step: over.step, purpose: 'agent', messages: over.messages };
    }
    if (!over && run.summary.status === 'overflow') return { rule: `the run ended as an overflow at step ${run.summary.failedStep} though no context exceeded the ${window}-token window`, step: run.summary.failedStep };
    return undefined;
  },
};

/** What a request is, for comparing two replays: the messages as a model receives them. */
const wire = (messages: readonly Message[]): string =>
  JSON.stringify(messages.map((m) => [m.role, m.id, m.content, m.role === 'assistant' ? m.toolCalls : m.role === 'tool' ? m.toolCallId : null]));

/**
 * (d) Deterministic: two replays of one case (fresh instances of the strategy, the same mock seed)
 * ask for the same requests, in the same order, with the same messages, and log the same events:
 * what makes a run reproducible and a baseline comparable.
 */
export const deterministic: Property = {
  name: 'deterministic',
  title: 'two replays of one case send the same requests and log the same events',
  replays: 2,
  judge(_c, [first, second]) {
    const broken = threw(first!) ?? threw(second!);
    if (broken) return broken;
    const [a, b] = [first!.asked, second!.asked];
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      const [x, y] = [a[i], b[i]];
      if (x && y && x.purpose === y.purpose && x.step === y.step && wire(x.messages) === wire(y.messages)) continue;
      const at = x ?? y!;
      const what = !x || !y ? `one replay asked for ${Math.min(a.length, b.length)} requests, the other for more` : `request ${i + 1} (${at.purpose}, step ${at.step}) differs between the replays: ${firstDifference(x, y)}`;
      return { rule: `not deterministic: ${what}`, step: at.step, purpose: at.purpose, messages: at.messages };
    }
    const events = (o: Observation): string => JSON.stringify(o.run?.events.map((e) => [e.kind, e.step, e.detail]) ?? []);
    if (events(first!) !== events(second!)) return { rule: 'not deterministic: the two replays logged different events' };
    return undefined;
  },
};

/** Where two asked requests first differ. */
function firstDifference(x: Observation['asked'][number], y: Observation['asked'][number]): string {
  if (x.purpose !== y.purpose || x.step !== y.step) return `${x.purpose} at step ${x.step}, then ${y.purpose} at step ${y.step}`;
  const i = x.messages.findIndex((m, k) => wire([m]) !== wire(y.messages.slice(k, k + 1)));
  if (i < 0) return `${x.messages.length} messages, then ${y.messages.length}`;
  const shown = (m: Message | undefined): string => (m === undefined ? 'none' : JSON.stringify(m.content.length > 40 ? `${m.content.slice(0, 40)}...` : m.content));
  return `message [${i}] (${x.messages[i]!.id}) is ${shown(x.messages[i])}, then ${shown(y.messages[i])}`;
}

/** Every property, in the order `bench verify` checks and prints them. */
export const PROPERTIES: readonly Property[] = [pairing, inPlace, fits, deterministic];

/** Replays `c` as often as `property` needs and judges it; `strategyTimeout` in seconds and `hookClock` as observe takes them. */
export async function checkCase(property: Property, strategy: StrategyDefinition, c: VerifyCase, counter: TokenCounter, strategyTimeout?: number, hookClock?: HookClock): Promise<Broken | undefined> {
  const seen: Observation[] = [];
  for (let i = 0; i < property.replays; i++) seen.push(await observe(strategy, c, counter, strategyTimeout, hookClock));
  return property.judge(c, seen, counter);
}
