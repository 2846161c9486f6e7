/**
 * One replay of a generated case through the real runner (replay.ts) on the mock backend, watched
 * from outside the strategy: every context it asks to send (agent requests, and its summary,
 * checkpoint and continuation requests as it asks for them, before the runner admits them), what the
 * backend received, and every message it changed in place. The properties (properties.ts) judge
 * what this records; nothing here judges.
 */
import type { ChatRequest } from '../core/backend.js';
import type { Message } from '../core/messages.js';
import type { Params } from '../core/params.js';
import { DEFAULT_REREAD_CAPS, type RunResult } from '../core/run-records.js';
import type { AuxiliaryLlm, StrategyDefinition, StrategyRun } from '../core/strategy.js';
import type { TokenCounter } from '../core/tokens.js';
import { createMockBackend } from '../llm/mock.js';
import { replayScenario } from '../runner/replay.js';
import type { HookClock } from '../runner/strategy-guard.js';
import type { Scenario } from '../scenarios/scenario.js';

/** One generated case: a history, the strategy's parameters, a window, how the agent replays. */
export interface VerifyCase {
  readonly scenario: Scenario;
  readonly params: Params;
  readonly window: number;
  /** Reactive replay: the agent re-reads what the context lost, as extra steps the strategy manages too. */
  readonly reactive: boolean;
}

/** A context the strategy asked to send. */
export interface Asked {
  /** The agent request of `step`, or a helper request's purpose ("summary", "checkpoint", ...). */
  readonly purpose: string;
  readonly step: number;
  readonly messages: readonly Message[];
}

/** A message or message list the strategy changed after it had it. */
export interface InPlaceEdit {
  readonly step: number;
  readonly hook: 'beforeRequest' | 'afterResponse';
  readonly detail: string;
  /** The messages the hook was given. */
  readonly given: readonly Message[];
}

export interface Observation {
  /** Undefined when the replay did not finish (the strategy threw: `thrown`). */
  readonly run?: RunResult | undefined;
  /** In the order asked. */
  readonly asked: readonly Asked[];
  /** What the backend received, in order. */
  readonly received: readonly ChatRequest[];
  readonly edits: readonly InPlaceEdit[];
  /** What a hook threw, other than a refused write to a frozen message (an edit). */
  readonly thrown?: { readonly step: number; readonly hook: string; readonly message: string } | undefined;
  /** A hook wrote to a frozen message: the run's error, if it ended in one, is that edit (in-place's to judge). */
  readonly wroteFrozen: boolean;
}

/** What a strict-mode write to a frozen object throws (V8's wording): the runner freezes every message. */
const FROZEN_WRITE = /read[- ]only property|object is not extensible|Cannot (add|delete|assign to read only) property/i;

/**
 * Fingerprints of the message objects a strategy has seen or made: a message whose fingerprint changes
 * was edited in place (one the runner froze cannot be, in strict mode: the write throws instead).
 */
class MessageWatch {
  private readonly prints = new Map<Message, string>();

  /** Records `messages`; returns the first one that changed since it was recorded, as an edit's detail. */
  see(messages: readonly Message[]): string | undefined {
    let changed: string | undefined;
    for (const message of messages) {
      if (frozen(message)) continue; // cannot change: no need to fingerprint it
      const now = JSON.stringify(message);
      const then = this.prints.get(message);
      if (then === undefined) this.prints.set(message, now);
      else if (then !== now) changed ??= `message ${message.id} (${message.role}) was changed in place: ${changeOf(JSON.parse(then) as Message, message)}`;
    }
    return changed;
  }

  /** Every message recorded so far, checked again: an edit of one no longer in the context counts too. */
  recheck(): string | undefined {
    return this.see([...this.prints.keys()]);
  }
}

/** A message no write can change: frozen with its calls, origin and usage (as the runner and core/messages.ts make them). */
function frozen(message: Message): boolean {
  if (!Object.isFrozen(message) || !Object.isFrozen(message.origin)) return false;
  if (message.role !== 'assistant') return true;
  return Object.isFrozen(message.toolCalls) && message.toolCalls.every((call) => Object.isFrozen(call)) && (message.usage === undefined || Object.isFrozen(message.usage));
}

/** Which fields of a message changed. */
function changeOf(before: Message, after: Message): string {
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  const fields = keys.filter((k) => JSON.stringify((before as unknown as Record<string, unknown>)[k]) !== JSON.stringify((after as unknown as Record<string, unknown>)[k]));
  return `${fields.join(', ')} differ${fields.length === 1 ? 's' : ''}`;
}

/** A plan's messages as far as they are a list of objects (a malformed plan is the runner's to refuse), else none. */
const listOf = (plan: { readonly messages?: readonly Message[] } | null | undefined): readonly Message[] => {
  const messages: unknown = plan?.messages;
  return Array.isArray(messages) && messages.every((m) => typeof m === 'object' && m !== null) ? (messages as Message[]) : [];
};

/** Replays `c` through `strategy` on the mock and records what the strategy asked, sent and changed. */
/**
 * Replays `c` through `strategy` and records what it asked, sent and edited; a hook call past
 * `strategyTimeout` seconds ends the run, and is published on `hookClock` for a watchdog thread.
 */
export async function observe(strategy: StrategyDefinition, c: VerifyCase, counter: TokenCounter, strategyTimeout?: number, hookClock?: HookClock): Promise<Observation> {
  const asked: Asked[] = [];
  const received: ChatRequest[] = [];
  const edits: InPlaceEdit[] = [];
  let thrown: Observation['thrown'];
  const watch = new MessageWatch();
  const refusedWrites = new WeakSet<object>(); // errors that are edits, not a strategy's failure
  let wroteFrozen = false;

  /** Runs one hook with its input list and every message seen so far watched; a frozen write is an edit. */
  const watched = async <T>(hook: InPlaceEdit['hook'], step: number, given: readonly Message[], call: () => T | Promise<T>, sent: (out: T) => readonly Message[]): Promise<T> => {
    const edit = (detail: string | undefined): void => void (detail !== undefined && edits.push({ step, hook, detail, given: [...given] }));
    edit(watch.recheck());
    edit(watch.see(given));
    const list = [...given];
    let out: T;
    try {
      out = await call();
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (error instanceof TypeError && FROZEN_WRITE.test(message)) {
        edit(`it wrote to a frozen message (${message})`);
        refusedWrites.add(error);
        wroteFrozen = true;
      } else thrown ??= { step, hook, message };
      throw error;
    }
    edit(watch.recheck());
    if (given.length !== list.length || given.some((m, i) => m !== list[i])) edit(`the message list it was given was changed in place (${list.length} messages, now ${given.length})`);
    watch.see(sent(out));
    return out;
  };
  const spy = (llm: AuxiliaryLlm, step: number): AuxiliaryLlm => (request) => {
    asked.push({ purpose: request.purpose, step, messages: [...request.messages] });
    watch.see(request.messages);
    return llm(request);
  };

  const spied: StrategyDefinition = {
    ...strategy,
    create(params) {
      const run: StrategyRun = strategy.create(params);
      return {
        beforeRequest: (input) =>
          watched('beforeRequest', input.step, input.messages, () => run.beforeRequest({ ...input, llm: spy(input.llm, input.step) }), (plan) => {
            // What is no plan (null, no message list) the runner refuses: the run ends in an error, judged as such.
            const messages = listOf(plan);
            if (plan?.stop === undefined && messages.length > 0) asked.push({ purpose: 'agent', step: input.step, messages: [...messages] });
            return messages;
          }),
        ...(run.afterResponse
          ? {
              afterResponse: (input) =>
                watched('afterResponse', input.step, input.messages, () => run.afterResponse!({ ...input, llm: spy(input.llm, input.step) }), listOf),
            }
          : {}),
      };
    },
  };

  const mock = createMockBackend(counter);
  // The runner appends to its history array after a request: keep each list as it was when sent.
  const backend = { name: 'mock', complete: (request: ChatRequest) => (received.push({ ...request, messages: [...request.messages] }), mock.complete(request)) };
  const replay = c.reactive ? { mode: 'reactive' as const, caps: DEFAULT_REREAD_CAPS } : undefined;
  try {
    const run = await replayScenario({ scenario: c.scenario, sourceFormat: 'ctxbench', strategy: spied, params: c.params, backend, counter, model: 'gpt-4o', window: c.window, batchId: 'verify', replay, strategyTimeout, hookClock });
    return { run, asked, received, edits, thrown, wroteFrozen };
  } catch (error) {
    // A hook threw (recorded above), or the runner stopped on what it was handed.
    if (!(error instanceof Object && refusedWrites.has(error))) thrown ??= { step: -1, hook: 'runner', message: error instanceof Error ? error.message : String(error) };
    return { asked, received, edits, thrown, wroteFrozen };
  }
}
