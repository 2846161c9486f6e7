/**
 * The calls a replay makes besides the agent's own turns, through the same backend: the auxiliary LLM
 * a strategy asks for summaries and checkpoints (admitted and held against the window like any
 * request, its tokens logged and billed as overhead), and the probe questions asked at their steps
 * (logged, not billed: the measurement is the benchmark's).
 */
import type { Backend } from '../core/backend.js';
import type { Message } from '../core/messages.js';
import { PROBE_MAX_OUTPUT_TOKENS, PROBE_PURPOSE, probeRequest, replyHolds } from '../core/probe-question.js';
import type { ProbeRecord } from '../core/run-records.js';
import { AuxiliaryCallError, type AuxiliaryLlm } from '../core/strategy.js';
import { countRequest, type TokenCounter } from '../core/tokens.js';
import { sendsTools, type ToolDefinition } from '../core/tools.js';
import type { Scenario } from '../scenarios/scenario.js';
import type { Admit } from './admit.js';
import { RunEnded, type RunLog } from './run-log.js';

/** What the calls of one run share. */
export interface CallEnv {
  readonly backend: Backend;
  readonly counter: TokenCounter;
  readonly window: number;
  readonly log: RunLog;
  readonly admit: Admit;
  /** The scenario's tool definitions: sent with a request that holds tool calls or results (sendsTools). */
  readonly tools?: readonly ToolDefinition[] | undefined;
}

/** The tool definitions a request sends: the scenario's, when its messages need them. */
const toolsFor = (tools: CallEnv['tools'], messages: readonly Message[], purpose: string): CallEnv['tools'] =>
  tools !== undefined && sendsTools(messages, purpose) ? tools : undefined;

/**
 * The LLM a run's strategy calls: a failed call is logged and thrown as AuxiliaryCallError, for the
 * strategy to handle. A request whose prompt and answer together exceed the window is refused as a
 * provider refuses one (reason `overflow`): the prompt before it is sent, the answer once its length is
 * known (the mock's answer, or the provider's completion tokens). The mock's refused answer is not
 * billed; a provider that answered anyway billed it, so its step is kept.
 */
export function auxiliaryLlm({ backend, window, log, admit, tools }: CallEnv): AuxiliaryLlm {
  return async (request) => {
    const fail = (reason: AuxiliaryCallError['reason'], detail: string): never => {
      log.record([{ kind: 'aux_failed', detail: `${request.purpose}: ${detail}` }]);
      throw new AuxiliaryCallError(reason, detail);
    };
    const local = admit(request.messages, request.purpose);
    if (local > window) fail('overflow', `context of ${local} tokens exceeds the ${window}-token window`);
    let response;
    try {
      response = await backend.complete({ messages: request.messages, purpose: request.purpose, tools: toolsFor(tools, request.messages, request.purpose), expect: request.expect, window });
    } catch (error) {
      return fail('backend', (error as Error).message);
    }
    const step = { purpose: request.purpose, localTokens: local, response, messageCount: request.messages.length, action: '' };
    const expected = log.usageOf(response, local);
    const [prompt, answer] = [expected.promptTokens ?? local, expected.completionTokens ?? 0];
    if (prompt + answer > window) {
      if (response.usageSource === 'provider') log.answered(step);
      fail('overflow', `a prompt of ${prompt} tokens plus an answer of ${answer} tokens exceeds the ${window}-token window`);
    }
    const usage = log.answered(step);
    if (response.message.toolCalls.length > 0) fail('tool_call', 'answered with a tool call instead of text');
    const text = response.message.content.trim();
    if (text === '') fail('empty', 'answered with no text');
    return { message: response.message, text, usage };
  };
}

export type AskProbe = (context: readonly Message[], probe: Scenario['probes'][number]) => Promise<Pick<ProbeRecord, 'reply' | 'answered'>>;

/**
 * Puts a probe's question to the backend on top of the context sent at its step. A question that no
 * longer fits the window goes unanswered; a backend failure ends the run like any other request's.
 */
export function probeAsker({ backend, counter, window, log, tools }: Omit<CallEnv, 'admit'>): AskProbe {
  return async (context, probe) => {
    const messages = probeRequest(context, probe.id, probe.question);
    const local = countRequest(counter, messages, PROBE_PURPOSE);
    if (local > window) {
      log.record([{ kind: 'warning', detail: `probe ${probe.id}: the question does not fit the window (${local} tokens): counted as not answered` }]);
      return { reply: '', answered: false };
    }
    const response = await backend.complete({ messages, purpose: PROBE_PURPOSE, tools: toolsFor(tools, messages, PROBE_PURPOSE), window, maxOutputTokens: PROBE_MAX_OUTPUT_TOKENS }).catch((error: unknown) => {
      throw new RunEnded('error', `${backend.name}: probe ${probe.id}: ${(error as Error).message}`);
    });
    log.answered({ purpose: PROBE_PURPOSE, localTokens: local, response, messageCount: messages.length, action: '' });
    const reply = response.message.content.trim();
    return { reply, answered: replyHolds(reply, probe.answer) };
  };
}
