/**
 * The tool-call pairing INVARIANT (design: "every context sent to a model") as a validator.
 *
 * Violations are named with the OpenHands SDK compliance taxonomy, so a report can say which of the
 * eight malformed shapes a strategy produced. Providers reject all of them (OpenAI and Anthropic with a
 * 400), which is why the runner treats a context with any violation as a failed request.
 */
import { unchangedPrefix } from './append-only.js';
import type { AssistantMessage, Message } from './messages.js';

export const VIOLATION_KINDS = [
  'unmatched_tool_use',
  'unmatched_tool_result',
  'interleaved_user_message',
  'interleaved_assistant_message',
  'duplicate_tool_call_id',
  'wrong_tool_call_id',
  'parallel_missing_result',
  'parallel_wrong_order',
] as const;
export type ViolationKind = (typeof VIOLATION_KINDS)[number];

export interface Violation {
  readonly kind: ViolationKind;
  /** Index in the checked context of the message where the violation shows. */
  readonly index: number;
  readonly toolCallId?: string;
  readonly detail: string;
}

interface Batch {
  readonly index: number;
  readonly size: number;
  /** Calls of the batch still waiting for their result, in call order. */
  readonly pending: string[];
}

export interface PairingOptions {
  /**
   * True for a context about to be SENT as a request: then no call may be left unanswered, not even
   * on a trailing assistant message (providers reject it). Default false: a history may end on the
   * assistant message whose calls are being executed.
   */
  readonly request?: boolean;
}

/**
 * Checks one context against the pairing invariant and returns every violation (empty = valid).
 * A context may end on the assistant message whose calls are being executed (invariant, rule 2).
 */
export function checkPairing(context: readonly Message[], options: PairingOptions = {}): Violation[] {
  const violations: Violation[] = [];
  const callIndex = new Map<string, number>(); // every call id seen so far -> its assistant's index
  const answered = new Set<string>();
  const laterResults = indexResults(context);
  const laterCalls = indexCalls(context);
  const reportedInterleaved = new Set<string>();
  const answeredEarly = new Set<string>(); // results already reported as parallel_wrong_order
  let batch: Batch | undefined;

  const closeBatch = (at: number, by: Message | undefined): void => {
    if (!batch || batch.pending.length === 0) return;
    const comesLater = by ? batch.pending.filter((id) => (laterResults.get(id) ?? -1) > at) : [];
    // A call whose result came before it was already reported (parallel_wrong_order): not again here.
    const missing = batch.pending.filter((id) => !comesLater.includes(id) && !answeredEarly.has(id));
    if (by && comesLater.length > 0) {
      const kind = by.role === 'assistant' ? 'interleaved_assistant_message' : 'interleaved_user_message';
      comesLater.forEach((id) => reportedInterleaved.add(id));
      violations.push({ kind, index: at, toolCallId: comesLater[0], detail: `${by.role} message between call ${comesLater[0]} and its result` });
    }
    // Calls that are never answered are a violation of their own, even when a sibling is interleaved.
    if (missing.length > 0) {
      const answeredSome = batch.size > missing.length;
      const kind = batch.size > 1 && answeredSome ? 'parallel_missing_result' : 'unmatched_tool_use';
      violations.push({ kind, index: batch.index, toolCallId: missing[0], detail: `call ${missing[0]} has no result` });
    }
    batch = undefined;
  };

  context.forEach((message, index) => {
    if (message.role === 'tool') {
      const id = message.toolCallId;
      const pendingAt = batch ? batch.pending.indexOf(id) : -1;
      if (batch && pendingAt >= 0) {
        batch.pending.splice(pendingAt, 1);
        answered.add(id);
      } else if (reportedInterleaved.has(id)) {
        reportedInterleaved.delete(id);
        answered.add(id);
      } else if (answered.has(id)) {
        // A pending call of the current batch that gets no answer of its own later on: this result
        // stands where that answer belongs, so it names the wrong call. If every pending call is
        // answered later, this is just a second result for `id` (a duplicate).
        const expected = batch?.pending.find((p) => (laterResults.get(p) ?? -1) < index && !answeredEarly.has(p));
        if (batch && expected !== undefined) {
          batch.pending.splice(batch.pending.indexOf(expected), 1);
          answered.add(expected);
          violations.push({ kind: 'wrong_tool_call_id', index, toolCallId: id, detail: `result for finished call ${id} where ${expected} was expected` });
        } else {
          violations.push({ kind: 'duplicate_tool_call_id', index, toolCallId: id, detail: `second result for call ${id}` });
        }
      } else if ((laterCalls.get(id) ?? -1) > index) {
        answeredEarly.add(id);
        violations.push({ kind: 'parallel_wrong_order', index, toolCallId: id, detail: `result for ${id} comes before its call` });
      } else if (callIndex.has(id)) {
        // The call exists but belongs to an older batch that was already closed.
        violations.push({ kind: 'wrong_tool_call_id', index, toolCallId: id, detail: `result for ${id} is not next to its call` });
        answered.add(id);
      } else {
        violations.push({ kind: 'unmatched_tool_result', index, toolCallId: id, detail: `no call with id ${id} in the context` });
      }
      return;
    }
    closeBatch(index, message);
    if (message.role === 'assistant' && message.toolCalls.length > 0) {
      batch = openBatch(message, index, callIndex, violations);
    }
  });

  // Rule 2's exception: the context may end on the assistant whose calls are running.
  const endsOnCalls = batch !== undefined && batch.index === context.length - 1 && options.request !== true;
  if (!endsOnCalls) closeBatch(context.length, undefined);
  return violations;
}

/**
 * `checkPairing` for the consecutive contexts of one run, in time linear in what changed. Consecutive
 * contexts mostly extend the last one, or repeat it with a message's content replaced (a masked
 * output keeps its id); pairing depends only on roles and ids, so the guard keeps the left-to-right
 * state of the last context it scanned and goes on from there when the new context matches it so far,
 * else scans from the start; the same append-only array again (append-only.ts) is not compared, only
 * its appended messages scanned. A context found invalid gets checkPairing's full answer, so the
 * result is always exactly checkPairing's.
 */
export function createPairingGuard(): (context: readonly Message[], options?: PairingOptions) => Violation[] {
  let scanned: Message[] = []; // the messages scanned so far, as they were
  let last: readonly Message[] | undefined; // the context checked last
  let ids = new Set<string>(); // every call id in them
  let pending = new Set<string>(); // calls of the last assistant turn still waiting for their result
  let batchAt = -1; // index of that assistant turn

  const reset = (): void => {
    [scanned, ids, pending, batchAt] = [[], new Set(), new Set(), -1];
  };
  /** Scans one more message; false when it breaks the invariant (the state is then spoiled). */
  const scan = (message: Message, index: number): boolean => {
    if (message.role === 'tool') return pending.delete(message.toolCallId);
    if (pending.size > 0) return false;
    if (message.role !== 'assistant' || message.toolCalls.length === 0) return true;
    for (const call of message.toolCalls) {
      if (ids.has(call.id)) return false;
      ids.add(call.id);
      pending.add(call.id);
    }
    batchAt = index;
    return true;
  };

  return (context, options = {}) => {
    const lastChecked = last;
    last = context;
    let same = context.length >= scanned.length;
    for (let i = unchangedPrefix(context, lastChecked, scanned.length); same && i < scanned.length; i++) {
      const [now, then] = [context[i]!, scanned[i]!];
      if (now === then) continue;
      same = samePairing(now, then);
      scanned[i] = now; // the same objects next time, most likely
    }
    if (!same) reset();
    for (let i = scanned.length; i < context.length; i++) {
      if (!scan(context[i]!, i)) {
        reset();
        return checkPairing(context, options);
      }
      scanned.push(context[i]!);
    }
    const endsOnCalls = pending.size > 0 && batchAt === context.length - 1 && options.request !== true;
    return pending.size === 0 || endsOnCalls ? [] : checkPairing(context, options);
  };
}

/** Whether two messages weigh the same in the pairing invariant: role and ids. */
function samePairing(a: Message, b: Message): boolean {
  if (a.role !== b.role) return false;
  if (a.role === 'tool') return a.toolCallId === (b as typeof a).toolCallId;
  if (a.role !== 'assistant') return true;
  const calls = (b as typeof a).toolCalls;
  return a.toolCalls.length === calls.length && a.toolCalls.every((call, i) => call.id === calls[i]!.id);
}

function openBatch(message: AssistantMessage, index: number, callIndex: Map<string, number>, violations: Violation[]): Batch {
  const pending: string[] = [];
  for (const call of message.toolCalls) {
    if (callIndex.has(call.id) || pending.includes(call.id)) {
      violations.push({ kind: 'duplicate_tool_call_id', index, toolCallId: call.id, detail: `call id ${call.id} used twice` });
      continue;
    }
    callIndex.set(call.id, index);
    pending.push(call.id);
  }
  return { index, size: message.toolCalls.length, pending };
}

/** Last index at which each tool_call_id is answered. */
function indexResults(context: readonly Message[]): Map<string, number> {
  const at = new Map<string, number>();
  context.forEach((m, i) => {
    if (m.role === 'tool') at.set(m.toolCallId, i);
  });
  return at;
}

/** Last index at which each call id is made. */
function indexCalls(context: readonly Message[]): Map<string, number> {
  const at = new Map<string, number>();
  context.forEach((m, i) => {
    if (m.role === 'assistant') m.toolCalls.forEach((c) => at.set(c.id, i));
  });
  return at;
}

/**
 * Invariant rule 4: scenario messages appear in the context in history order (dropped or edited,
 * never reordered), and the system prompt, when the history starts with one, stays first.
 * Returns a description of the first breach, or undefined.
 */
export function checkOrder(history: readonly Message[], context: readonly Message[]): string | undefined {
  const position = new Map<string, number>();
  history.forEach((m, i) => position.set(m.id, i));
  let last = -1;
  for (const [i, m] of context.entries()) {
    if (m.origin.source !== 'scenario' && !position.has(m.id)) continue;
    const at = position.get(m.id);
    if (at === undefined) return `context[${i}] (${m.id}) is not in the history`;
    if (at <= last) return `context[${i}] (${m.id}) is out of history order`;
    last = at;
  }
  // Compared by id: a different system message (a summary, say) in front does not stand in for the prompt.
  const prompt = history[0];
  if (prompt?.role === 'system' && context[0]?.id !== prompt.id) return 'the system prompt is not first';
  return undefined;
}

/** One line per violation, for errors and logs. */
export function describeViolations(violations: readonly Violation[]): string {
  return violations.map((v) => `${v.kind} at [${v.index}]: ${v.detail}`).join('; ');
}
