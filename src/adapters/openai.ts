/**
 * `compact(messages, { strategy, window })`: a strategy over OpenAI chat messages, for any agent that
 * sends them (the `openai` SDK, an OpenAI-compatible server, a loop of your own). It takes the messages
 * as you send them (roles system, developer, user, assistant, tool; content as text or parts; tool
 * calls) and gives back the ones to send, in the same format: the very objects you passed for what
 * the strategy kept, edited copies for what it changed, new ones for what it wrote.
 *
 * `compact` runs the strategy on one request, as the first of a run. In an agent loop use
 * `createCompactor`: it keeps the run between requests, so masks, restarts and summaries carry over.
 */
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { CompletionUsage } from 'openai/resources/completions';
import { CtxbenchError } from '../core/errors.js';
import type { Message } from '../core/messages.js';
import type { OffloadStore } from '../core/offload-store.js';
import type { Params } from '../core/params.js';
import { fromOpenAiMessage, toOpenAiMessages } from '../llm/convert.js';
import { createCompactionRun, type CompactionSettings, type CompactionStep, checkedOptions, inTurn, optionalFunction } from './compaction-run.js';
import { createHistoryReader, fateOf, type ReadHistory } from './history.js';

type ChatMessage = ChatCompletionMessageParam;

const ROLES = ['system', 'developer', 'user', 'assistant', 'tool', 'function'];

export interface CompactOptions<P extends Params = Params> extends CompactionSettings<P> {
  /**
   * Writes the summaries and checkpoints a strategy asks for: the request in OpenAI's format, resolved
   * to the answer's text (e.g. with `client.chat.completions.create`). Default: none; such a request
   * then fails with an `aux_failed` event and the strategy takes its fallback path (a heuristic summary).
   */
  readonly llm?: (messages: ChatMessage[], request: { readonly purpose: string }) => Promise<string>;
}

/** The messages to send, in OpenAI's format, and what the strategy did. */
export interface CompactResult extends Omit<CompactionStep, 'messages'> {
  readonly messages: ChatMessage[];
  readonly window: number;
}

export interface Compactor {
  /**
   * The messages to send for the next request: `messages` is the whole conversation so far; `usage`
   * is what the provider reported for the previous request (`completion.usage`), default ctxbench's count.
   */
  compact(messages: readonly ChatMessage[], request?: { readonly usage?: CompletionUsage | null | undefined }): Promise<CompactResult>;
  /** Where the strategy put what it took out of the context (offloaded results): a pointer names the path. */
  readonly files: OffloadStore;
}

/** Reads one OpenAI message; a message with no known role is refused, naming it. */
function readMessage(p: ChatMessage, index: number, callNames: Map<string, string>): { message: Message; part: number; label: string }[] {
  const label = `messages[${index}]`;
  const role: unknown = (p as { role?: unknown } | null)?.role;
  if (!ROLES.includes(role as string)) throw new CtxbenchError('MESSAGES_INVALID', `${label}: role ${JSON.stringify(role)} is not one of ${ROLES.join(', ')}`);
  const problem = shapeProblem(p as unknown as Record<string, unknown>);
  if (problem) throw new CtxbenchError('MESSAGES_INVALID', `${label}${problem}`);
  return [{ message: fromOpenAiMessage(p, `m${index}`, callNames), part: 0, label }];
}

/**
 * What of a message's shape the OpenAI types promise and a plain-JS caller may not keep: content as
 * text or parts, tool calls as a list of functions with a name and JSON-string arguments. A problem
 * is named by its path (`.tool_calls[0].function.arguments: ...`); otherwise the strategy would be
 * blamed for what it was handed.
 */
function shapeProblem(p: Record<string, unknown>): string | undefined {
  const { content, tool_calls: calls } = p;
  // Deprecated by OpenAI: a result pairs with its call by name, which two calls of one tool break.
  if (p.role === 'function' || (p.function_call !== undefined && p.function_call !== null)) return `${p.role === 'function' ? '' : '.function_call'}: legacy function calling is not supported (send tool_calls and tool messages)`;
  if (content !== undefined && content !== null && typeof content !== 'string' && !Array.isArray(content)) return `.content: expected text or a list of parts (got ${typeof content})`;
  if (calls === undefined || calls === null) return undefined;
  if (!Array.isArray(calls)) return `.tool_calls: expected a list (got ${typeof calls})`;
  for (const [k, call] of (calls as unknown[]).entries()) {
    const custom = typeof call === 'object' && call !== null && (call as { type?: unknown }).type === 'custom';
    const [field, value] = custom ? ['custom', 'input'] : ['function', 'arguments'];
    const fn = typeof call === 'object' && call !== null ? (call as Record<string, { name?: unknown; [value: string]: unknown } | undefined>)[field] : undefined;
    if (typeof fn?.name !== 'string') return `.tool_calls[${k}].${field}.name: expected a tool name`;
    const given = fn[value];
    if (typeof given !== 'string') return `.tool_calls[${k}].${field}.${value}: expected ${custom ? 'text' : 'a JSON string'} (got ${given === null ? 'null' : typeof given})`;
  }
  return undefined;
}

/** A context as OpenAI messages: the caller's objects where the strategy kept them, edited copies, new ones. */
function toChatMessages(history: ReadHistory<ChatMessage>, context: readonly Message[]): ChatMessage[] {
  return context.map((m) => {
    const fate = fateOf(history, m);
    if (fate.kind === 'kept') return fate.source.item;
    const [sent] = toOpenAiMessages([m]);
    return fate.kind === 'edited' ? ({ ...fate.source.item, ...asSentBefore(sent!, fate.source.item) } as ChatMessage) : sent!;
  });
}

/** An edited message's tool calls as the caller sent them: a custom tool's call stays one, its input edited. */
function asSentBefore(sent: ChatMessage, source: ChatMessage): ChatMessage {
  if (sent.role !== 'assistant' || !sent.tool_calls || source.role !== 'assistant') return sent;
  const before = new Map((source.tool_calls ?? []).map((c) => [c.id, c]));
  const tool_calls = sent.tool_calls.map((c) => {
    const was = before.get(c.id);
    return was?.type === 'custom' && c.type === 'function' ? { ...was, custom: { ...was.custom, input: c.function.arguments } } : c;
  });
  return { ...sent, tool_calls };
}

/** A strategy run over one conversation of OpenAI chat messages, kept from one request to the next. */
export function createCompactor<P extends Params>(options: CompactOptions<P>): Compactor {
  checkedOptions(options);
  const read = createHistoryReader(readMessage);
  let history: ReadHistory<ChatMessage> | undefined; // the conversation of the request being compacted
  const llm = optionalFunction(options.llm, 'llm');
  const run = createCompactionRun(options, llm && ((request) => llm(toChatMessages(history!, request.messages), { purpose: request.purpose })));
  const turn = inTurn(); // `history` is the compaction's in progress: one at a time
  return {
    files: run.files,
    compact: (messages, { usage } = {}) =>
      turn(async () => {
        history = read(messages);
        const step = await run.step({
          history: history.messages,
          usage: { promptTokens: ['usage.prompt_tokens', usage?.prompt_tokens], completionTokens: ['usage.completion_tokens', usage?.completion_tokens] },
          label: history.label,
        });
        return { ...step, messages: toChatMessages(history, step.messages), window: options.window };
      }),
  };
}

/** The messages to send for one request, compacted by `options.strategy` as the first request of a run. */
export async function compact<P extends Params>(messages: readonly ChatMessage[], options: CompactOptions<P>): Promise<CompactResult> {
  return createCompactor(options).compact(messages); // async: bad options reject, as bad messages do
}
