/**
 * `ctxbench/ai-sdk`: a strategy run as the Vercel AI SDK's `prepareStep` in `generateText` /
 * `streamText`. Each step the SDK hands over the whole conversation (its `ModelMessage`s); the
 * strategy's context goes back as the step's `messages`, in the same format: the SDK's own message
 * objects for what the strategy kept (images, reasoning and provider options intact), edited copies
 * for what it changed, new ones for what it wrote. The SDK keeps the full history; only what the model
 * receives is compacted, and the run's state (masks, restarts, summaries) carries over from step to
 * step, and from one `generateText` call to the next while the conversation grows.
 *
 * The `ai` package is a peer dependency: this module uses its types only.
 */
import type { ModelMessage, ToolCallPart, ToolModelMessage, ToolResultPart } from 'ai';
import { CtxbenchError } from '../core/errors.js';
import { assistantMessage, systemMessage, toolMessage, userMessage, type Message, type ToolCall } from '../core/messages.js';
import type { OffloadStore } from '../core/offload-store.js';
import type { Params } from '../core/params.js';
import { createCompactionRun, type CompactionSettings, checkedOptions, inTurn, optionalFunction } from './compaction-run.js';
import { createHistoryReader, fateOf, type ReadHistory, type ReadMessage } from './history.js';

export interface AiSdkCompactionOptions<P extends Params = Params> extends CompactionSettings<P> {
  /**
   * The `system` you pass `generateText`, so the strategy sees it (counts it, keeps it first, seeds a
   * restart with it). Default: none (a system message first in `messages` is seen anyway).
   */
  readonly system?: string;
  /**
   * Writes the summaries and checkpoints a strategy asks for (e.g. `async (messages) => (await
   * generateText({ model, messages })).text`). Default: none; such a request then fails with an
   * `aux_failed` event and the strategy takes its fallback path.
   */
  readonly llm?: (messages: ModelMessage[], request: { readonly purpose: string }) => Promise<string>;
  /** Called with what the strategy did at each step (masked, summarized, restart, overflow...). */
  readonly onStep?: (step: { readonly stepNumber: number; readonly events: readonly { kind: string; detail: string; step: number }[]; readonly tokens: number }) => void;
}

/** What a compacting `prepareStep` reads of the SDK's step options: any tool set's options are these. */
export interface PrepareStepInput {
  readonly steps: readonly { readonly usage: { readonly inputTokens: number | undefined; readonly outputTokens: number | undefined } }[];
  readonly stepNumber: number;
  readonly messages: ModelMessage[];
}

/** A `prepareStep` (for `generateText` / `streamText` with any tools) that compacts every step's messages, and the run's offload store. */
export type CompactingPrepareStep = ((options: PrepareStepInput) => Promise<{ messages: ModelMessage[]; system?: string }>) & { readonly files: OffloadStore };

type Part<M extends ModelMessage> = Exclude<M['content'], string>[number];
type ToolPart = ToolModelMessage['content'][number];

const isToolResult = (part: ToolPart): part is ToolResultPart => part.type === 'tool-result';

/** The text of a part list's text parts. */
function textOf(content: string | readonly { type: string; text?: string }[]): string {
  return typeof content === 'string' ? content : content.flatMap((p) => (p.type === 'text' && typeof p.text === 'string' ? [p.text] : [])).join('');
}

/** A tool result's output as the text a model reads. */
function outputText(output: ToolResultPart['output']): string {
  switch (output.type) {
    case 'text':
    case 'error-text':
      return output.value;
    case 'json':
    case 'error-json':
      return JSON.stringify(output.value);
    case 'execution-denied':
      return output.reason ?? 'execution denied';
    case 'content':
      return output.value.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('');
  }
}

/** A call's input as the JSON text ctxbench keeps arguments in. */
const argumentsOf = (input: unknown): string => (typeof input === 'string' ? input : JSON.stringify(input ?? {}));

/** Back from JSON text: what a call part's input holds. */
function inputOf(args: string): unknown {
  try {
    return JSON.parse(args);
  } catch {
    return args;
  }
}

/** Calls the model must answer: the provider-executed ones carry their result in the same message. */
const clientCalls = (parts: readonly Part<ModelMessage>[]): ToolCallPart[] => parts.filter((p): p is ToolCallPart => p.type === 'tool-call' && p.providerExecuted !== true);

/** Reads one ModelMessage: a tool message is one of ours per result part (`messages[3].content[1]`); index -1 is the `system` option. */
function readMessage(m: ModelMessage, index: number, callNames: Map<string, string>): Omit<ReadMessage<ModelMessage>, 'item'>[] {
  const label = index < 0 ? 'system' : `messages[${index}]`;
  const id = index < 0 ? 'system' : `m${index}`;
  switch ((m as { role?: unknown } | null)?.role) {
    case 'system':
      return [{ message: systemMessage({ id, content: textOf(m.content as string) }), part: 0, label }];
    case 'user':
      return [{ message: userMessage({ id, content: textOf(m.content as string) }), part: 0, label }];
    case 'assistant': {
      const content = m.content as ModelMessage['content'];
      const toolCalls: ToolCall[] = typeof content === 'string' ? [] : clientCalls(content).map((c) => ({ id: c.toolCallId, name: c.toolName, arguments: argumentsOf(c.input) }));
      toolCalls.forEach((c) => callNames.set(c.id, c.name));
      return [{ message: assistantMessage({ id, content: textOf(content), toolCalls }), part: 0, label }];
    }
    case 'tool':
      return (m as ToolModelMessage).content.flatMap((part, k) =>
        isToolResult(part)
          ? [{ message: toolMessage({ id: `${id}.${k}`, toolCallId: part.toolCallId, name: part.toolName || (callNames.get(part.toolCallId) ?? ''), content: outputText(part.output) }), part: k, label: `${label}.content[${k}]` }]
          : [],
      );
    default:
      throw new CtxbenchError('MESSAGES_INVALID', `${label}: role ${JSON.stringify((m as { role?: unknown } | null)?.role)} is not one of system, user, assistant, tool`);
  }
}

/** A strategy's assistant message as parts: the source's other parts (reasoning, files) kept, its text and calls as the strategy left them. */
function assistantParts(m: Extract<Message, { role: 'assistant' }>, source?: ReadMessage<ModelMessage>): ModelMessage['content'] {
  const original = source && typeof source.item.content !== 'string' ? (source.item.content as Part<ModelMessage>[]) : [];
  const callPart = new Map(clientCalls(original).map((c) => [c.toolCallId, c]));
  const kept = original.filter((p) => p.type !== 'text' && !(p.type === 'tool-call' && callPart.has(p.toolCallId)));
  const calls = m.toolCalls.map((c): ToolCallPart => {
    const before = callPart.get(c.id);
    if (before && argumentsOf(before.input) === c.arguments) return before;
    return { ...before, type: 'tool-call', toolCallId: c.id, toolName: c.name, input: inputOf(c.arguments) };
  });
  return [...kept, ...(m.content === '' ? [] : [{ type: 'text' as const, text: m.content }]), ...calls] as ModelMessage['content'];
}

/** One of our tool messages as the result part to send, and the SDK's tool message it is unchanged from. */
function resultPart(history: ReadHistory<ModelMessage>, m: Extract<Message, { role: 'tool' }>): { part: ToolResultPart; from?: ToolModelMessage } {
  const fate = fateOf(history, m);
  const item = fate.kind === 'new' ? undefined : (fate.source.item as ToolModelMessage);
  const before = item?.content[fate.kind === 'new' ? 0 : fate.source.part] as ToolResultPart | undefined;
  if (fate.kind === 'kept') return { part: before!, from: item! };
  return { part: { ...before, type: 'tool-result', toolCallId: m.toolCallId, toolName: m.name, output: { type: 'text', value: m.content } } };
}

/** The SDK's tool message when `results` are all of its parts, unchanged and in order (approvals and all). */
function ownerOf(results: readonly { part: ToolResultPart; from?: ToolModelMessage }[]): ToolModelMessage | undefined {
  const from = results[0]?.from;
  if (!from || from.content.length !== results.length) return undefined;
  return results.every((r, k) => r.from === from && from.content[k] === r.part) ? from : undefined;
}

/** A context as ModelMessages: the results answering one call message go back as one tool message (the SDK's own when unchanged). */
function toModelMessages(history: ReadHistory<ModelMessage>, context: readonly Message[]): ModelMessage[] {
  const out: ModelMessage[] = [];
  let results: { part: ToolResultPart; from?: ToolModelMessage }[] = [];
  const flush = (): void => {
    if (results.length > 0) out.push(ownerOf(results) ?? { role: 'tool', content: results.map((r) => r.part) });
    results = [];
  };
  for (const m of context) {
    if (m.role === 'tool') {
      results.push(resultPart(history, m));
      continue;
    }
    flush();
    const fate = fateOf(history, m);
    const base = fate.kind === 'edited' ? fate.source.item : {};
    if (fate.kind === 'kept') out.push(fate.source.item);
    else if (m.role === 'assistant') out.push({ ...base, role: 'assistant', content: assistantParts(m, fate.kind === 'edited' ? fate.source : undefined) } as ModelMessage);
    else out.push({ ...base, role: m.role, content: m.content } as ModelMessage);
  }
  flush();
  return out;
}

/**
 * A `prepareStep` running `options.strategy` over the agent's conversation: `prepareStep:
 * compactSteps({ strategy: 'masking', window: 128_000, system })`. The previous step's usage
 * (`steps.at(-1).usage.inputTokens`) is the provider's prompt count the strategy measures with.
 * A conversation that breaks tool-call pairing, or a strategy that does, throws a CtxbenchError
 * naming the message or the strategy and step; a strategy that stops the run throws CompactionStopped.
 */
export function compactSteps<P extends Params>(options: AiSdkCompactionOptions<P>): CompactingPrepareStep {
  checkedOptions(options);
  // The `system` option as a message of the history, the same object every step (so its id holds).
  const system: ModelMessage | undefined = options.system === undefined ? undefined : { role: 'system', content: options.system };
  const read = createHistoryReader<ModelMessage>((m, index, callNames) => readMessage(m, system ? index - 1 : index, callNames));
  let history: ReadHistory<ModelMessage> | undefined; // the conversation of the step being prepared
  const [llm, onStep] = [optionalFunction(options.llm, 'llm'), optionalFunction(options.onStep, 'onStep')];
  const run = createCompactionRun(options, llm && ((request) => llm(toModelMessages(history!, request.messages), { purpose: request.purpose })));
  const turn = inTurn(); // `history` is the compaction's in progress: one at a time
  const prepareStep = ({ steps, stepNumber, messages }: PrepareStepInput) =>
    turn(async () => {
      history = read(system ? [system, ...messages] : messages);
      const usage = steps?.at(-1)?.usage;
      const step = await run.step({
        history: history.messages,
        usage: { promptTokens: ['usage.inputTokens', usage?.inputTokens], completionTokens: ['usage.outputTokens', usage?.outputTokens] },
        label: history.label,
      });
      onStep?.({ stepNumber, events: step.events, tokens: step.tokens });
      const out = toModelMessages(history, step.messages);
      if (!system) return { messages: out };
      // The SDK sends its `system` itself: it goes back as that option (the strategy's, if it rewrote it).
      const first = out[0]?.role === 'system' ? out.shift()! : undefined;
      return { messages: out, ...(first && first !== system ? { system: first.content as string } : {}) };
    });
  return Object.assign(prepareStep, { files: run.files });
}
