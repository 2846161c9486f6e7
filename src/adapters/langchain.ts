/**
 * `ctxbench/langchain`: a strategy run as a LangChain.js `createAgent` middleware. Its
 * `wrapModelCall` hands the strategy the agent's whole conversation (the system message, then the
 * state's messages) before each model call, and calls the model with the strategy's context instead,
 * in LangChain's messages: the agent's own message objects for what the strategy kept, new ones of
 * the same class for what it edited or wrote. The agent's state keeps the full history; only what the
 * model receives is compacted, and the run's state carries over from one call to the next.
 *
 * `langchain` and `@langchain/core` are peer dependencies: only this entry loads them.
 */
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { createMiddleware } from 'langchain';
import { CtxbenchError } from '../core/errors.js';
import { assistantMessage, systemMessage, toolMessage, userMessage, type Message } from '../core/messages.js';
import type { OffloadStore } from '../core/offload-store.js';
import type { Params } from '../core/params.js';
import { createCompactionRun, type CompactionSettings, checkedOptions, inTurn, optionalFunction } from './compaction-run.js';
import { createHistoryReader, fateOf, type ReadHistory, type ReadMessage } from './history.js';

export interface LangChainCompactionOptions<P extends Params = Params> extends CompactionSettings<P> {
  /**
   * Writes the summaries and checkpoints a strategy asks for (e.g. `async (messages) => (await
   * model.invoke(messages)).text`). Default: none; such a request then fails with an `aux_failed`
   * event and the strategy takes its fallback path.
   */
  readonly llm?: (messages: BaseMessage[], request: { readonly purpose: string }) => Promise<string>;
  /** Called with what the strategy did at each model call (masked, summarized, restart, overflow...). */
  readonly onStep?: (step: { readonly step: number; readonly events: readonly { kind: string; detail: string; step: number }[]; readonly tokens: number }) => void;
}

/** The argument JSON text of a LangChain tool call's `args`. */
const argumentsOf = (args: unknown): string => (typeof args === 'string' ? args : JSON.stringify(args ?? {}));

function argsOf(text: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : { input: parsed };
  } catch {
    return { input: text };
  }
}

/** Reads one LangChain message (index -1: the agent's system message). */
function readMessage(m: BaseMessage, index: number, callNames: Map<string, string>): Omit<ReadMessage<BaseMessage>, 'item'>[] {
  const label = index < 0 ? 'systemMessage' : `messages[${index}]`;
  const id = index < 0 ? 'system' : `m${index}`;
  const content = m.text;
  switch (m.type) {
    case 'system':
      return [{ message: systemMessage({ id, content }), part: 0, label }];
    case 'human':
      return [{ message: userMessage({ id, content }), part: 0, label }];
    case 'ai': {
      const toolCalls = ((m as AIMessage).tool_calls ?? []).map((c, k) => ({ id: c.id ?? `${id}.call${k}`, name: c.name, arguments: argumentsOf(c.args) }));
      toolCalls.forEach((c) => callNames.set(c.id, c.name));
      return [{ message: assistantMessage({ id, content, toolCalls }), part: 0, label }];
    }
    case 'tool': {
      const { tool_call_id: toolCallId, name } = m as ToolMessage;
      return [{ message: toolMessage({ id, toolCallId, name: name ?? callNames.get(toolCallId) ?? '', content }), part: 0, label }];
    }
    default:
      throw new CtxbenchError('MESSAGES_INVALID', `${label}: a ${m.type} message: only system, human, ai and tool messages can be compacted`);
  }
}

/** A context as LangChain messages: the agent's own where the strategy kept them, else new ones (an edit keeps the message's id). */
function toLangChain(history: ReadHistory<BaseMessage>, context: readonly Message[]): BaseMessage[] {
  return context.map((m) => {
    const fate = fateOf(history, m);
    if (fate.kind === 'kept') return fate.source.item;
    const id = fate.kind === 'edited' ? fate.source.item.id : undefined;
    const fields = { content: m.content, ...(id === undefined ? {} : { id }) };
    switch (m.role) {
      case 'system':
        return new SystemMessage(fields);
      case 'user':
        return new HumanMessage(fields);
      case 'assistant':
        return new AIMessage({ ...fields, tool_calls: m.toolCalls.map((c) => ({ id: c.id, name: c.name, args: argsOf(c.arguments), type: 'tool_call' as const })) });
      case 'tool':
        return new ToolMessage({ ...fields, tool_call_id: m.toolCallId, name: m.name });
    }
  });
}

/** The usage the model reported for the last answer in the conversation, if any. */
function lastUsage(messages: readonly BaseMessage[]): { input_tokens?: unknown; output_tokens?: unknown } | undefined {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.type === 'ai') return (messages[i] as AIMessage).usage_metadata;
  return undefined;
}

/**
 * A `createAgent` middleware running `options.strategy` over the agent's conversation: `middleware:
 * [compactionMiddleware({ strategy: 'masking', window: 128_000 })]`. The last answer's
 * `usage_metadata.input_tokens` is the provider's prompt count the strategy measures with. A
 * conversation that breaks tool-call pairing, or a strategy that does, fails the model call with a
 * CtxbenchError naming the message or the strategy and step (LangChain wraps it in a MiddlewareError).
 */
export function compactionMiddleware<P extends Params>(options: LangChainCompactionOptions<P>) {
  checkedOptions(options);
  const read = createHistoryReader<BaseMessage>((m, index, callNames) => readMessage(m, index - 1, callNames));
  let history: ReadHistory<BaseMessage> | undefined; // the conversation of the call being compacted
  const [llm, onStep] = [optionalFunction(options.llm, 'llm'), optionalFunction(options.onStep, 'onStep')];
  const run = createCompactionRun(options, llm && ((request) => llm(toLangChain(history!, request.messages), { purpose: request.purpose })));
  const turn = inTurn(); // `history` is the compaction's in progress: one at a time (the model calls are not)
  const middleware = createMiddleware({
    name: 'CtxbenchCompaction',
    wrapModelCall: async (request, handler) => {
      const system = request.systemMessage;
      const { out, step } = await turn(async () => {
        history = read([system, ...request.messages]);
        // An empty system message (createAgent's default) is no message: the strategy does not see it.
        const messages = system.text === '' ? history.messages.slice(1) : history.messages;
        const offset = messages === history.messages ? 0 : 1;
        const usage = lastUsage(request.messages);
        const step = await run.step({
          history: messages,
          usage: { promptTokens: ['usage_metadata.input_tokens', usage?.input_tokens], completionTokens: ['usage_metadata.output_tokens', usage?.output_tokens] },
          label: (i) => history!.label(i + offset),
        });
        return { step, out: toLangChain(history, step.messages) };
      });
      onStep?.({ step: step.step, events: step.events, tokens: step.tokens });
      const first = out[0]?.type === 'system' ? out.shift()! : undefined;
      return handler({ ...request, messages: out, ...(first && first !== system ? { systemMessage: first as SystemMessage } : {}) });
    },
  });
  return Object.assign(middleware, { files: run.files as OffloadStore });
}
