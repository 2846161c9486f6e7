/**
 * One strategy run driven by an agent's requests instead of a recorded scenario: what every adapter
 * (OpenAI chat messages, the AI SDK's prepareStep, LangChain's middleware) runs, in ctxbench's message
 * model. It keeps the run's state between requests as `bench run` does between steps, so a strategy's
 * edits, restarts and summaries carry over and the contexts are the ones a replay of the same
 * conversation sends:
 *
 * - the agent sends its whole history each time; what it appended since the last request (the model's
 *   answer, its tool results, a user's next message) is added to the context the strategy sent last,
 *   and the strategy gets that, as it gets the last context plus the recorded turn in a replay;
 * - the answer that opens what was appended goes to the strategy's `afterResponse` first (a plan then
 *   replaces the session's messages and what was appended is left out, as in a replay);
 * - the previous request's prompt tokens are the provider's when the adapter passes them, else
 *   ctxbench's count of what was sent (what the mock reports in `bench run`);
 * - every context sent, summary and checkpoint requests included, keeps the tool-call pairing rule:
 *   a conversation that breaks it is refused naming the message, a strategy that breaks it is an
 *   error naming the strategy and the step; a context over the window is sent with an `overflow`
 *   event (the provider has the last word);
 * - a history that does not extend the one seen before is a new conversation: a new run.
 */
import { CtxbenchError, errorLine } from '../core/errors.js';
import { assistantMessage, strategyOrigin, type Message } from '../core/messages.js';
import { createPlanChecker } from '../core/plan-check.js';
import { checkOrder, checkPairing, createPairingGuard, describeViolations, type Violation } from '../core/pairing.js';
import type { EventRecord } from '../core/run-records.js';
import { AuxiliaryCallError, type AuxiliaryLlm, type AuxiliaryRequest, type LastRequest, type StrategyEvent, type StrategyRun } from '../core/strategy.js';
import { createOffloadStore, type OffloadStore } from '../core/offload-store.js';
import { countRequest, createTokenCounter, DEFAULT_ENCODING, ENCODINGS, MAX_TOKEN_COUNT, PER_MESSAGE_TOKENS, withTools, type Encoding, type TokenCounter } from '../core/tokens.js';
import { readToolDefinitions, type ToolDeclaration } from '../core/tools.js';
import type { Usage } from '../core/backend.js';
import type { Params } from '../core/params.js';
import { checkUsage, type RawUsage } from '../llm/usage.js';
import { sameMessage } from './history.js';
import { chooseStrategy, type ChosenStrategy, type StrategyOptions } from './strategy-choice.js';

/** What every adapter takes: the strategy, its parameters, the model's window and the tokenizer. */
export interface CompactionSettings<P extends Params = Params> extends StrategyOptions<P> {
  /** The model's context window, in tokens. */
  readonly window: number;
  /** The tokenizer the strategy counts with. Default `'o200k_base'`. */
  readonly encoding?: Encoding;
  /**
   * The tool definitions the agent's requests declare: counted in every request that sends them, as
   * `bench run` counts a scenario's. As you send them: OpenAI's (`ChatCompletionTool`), Anthropic's,
   * or `{name, description, parameters}`. Default: none.
   */
  readonly tools?: readonly ToolDeclaration[];
}

/** Answers a strategy's summary or checkpoint request with its text; throws when it cannot. */
export type AuxiliaryText = (request: AuxiliaryRequest) => Promise<string>;

/** What the strategy did for one request, and what it sends. */
export interface CompactionStep {
  /** The context to send, in ctxbench's message model. */
  readonly messages: readonly Message[];
  /** What the strategy did (masked, removed, summarized, restart, ...), its answer to the last response's included. */
  readonly events: readonly EventRecord[];
  /** ctxbench's count of `messages` (the chosen tokenizer, chat framing included). */
  readonly tokens: number;
  /** 0-based index of this request in the run. */
  readonly step: number;
  /** 1-based session: a restart or a continuation starts the next one. */
  readonly session: number;
}

/** One request of the agent: its whole history so far, and what the provider said of the last one. */
export interface AgentRequest {
  /** The conversation as the agent holds it: messages it has sent before must be the same (object or content) and in the same place. */
  readonly history: readonly Message[];
  /** Usage the provider reported for the previous request, field by field as it names them; a value that is no token count is ignored with a warning event. */
  readonly usage?: RawUsage | undefined;
  /** How the agent's caller names `history[i]` in an error (`messages[3]`); default `messages[i]`. */
  readonly label?: ((index: number) => string) | undefined;
}

export interface CompactionRun {
  /** The context to send for the agent's next request. */
  step(request: AgentRequest): Promise<CompactionStep>;
  /** The run's offload store: where strategies put what they take out (pointers in the context name its paths). */
  readonly files: OffloadStore;
  readonly strategy: ChosenStrategy;
}

/** A strategy ended the run instead of sending (max restarts reached, a conversation exhausted): the agent stops. */
export class CompactionStopped extends CtxbenchError {
  constructor(
    message: string,
    /** What the strategy did before it stopped (its answer to the last response, with the reason). */
    readonly events: readonly EventRecord[],
  ) {
    super('STRATEGY_STOPPED', message);
    this.name = 'CompactionStopped';
  }
}

/** The window, checked: a whole number of tokens. */
function checkedWindow(window: unknown): number {
  if (typeof window === 'number' && Number.isInteger(window) && window >= 1 && window <= MAX_TOKEN_COUNT) return window;
  throw new CtxbenchError('OPTION_INVALID', `window: expected a whole number of tokens from 1 to ${MAX_TOKEN_COUNT.toLocaleString('en-US')} (got ${JSON.stringify(window)})`);
}

function checkedEncoding(encoding: unknown): Encoding {
  if ((ENCODINGS as readonly unknown[]).includes(encoding)) return encoding as Encoding;
  throw new CtxbenchError('OPTION_INVALID', `encoding: expected one of ${ENCODINGS.join(', ')} (got ${JSON.stringify(encoding)})`);
}

/** How many leading messages of `history` are the ones of `seen`. */
function sharedPrefix(seen: readonly Message[], history: readonly Message[]): number {
  let i = 0;
  while (i < seen.length && i < history.length && sameMessage(seen[i]!, history[i]!)) i++;
  return i;
}

/** The first violation, in words. */
const firstViolation = (violations: readonly Violation[]): string => describeViolations(violations.slice(0, 1));

/**
 * A summary or checkpoint request, as the runner sends one: pair-checked and held against the window,
 * then `answer` writes it, and the answer too must fit the window beside the prompt. A refused or failed call is an `aux_failed` event and an
 * AuxiliaryCallError, so the strategy takes its fallback path; without `answer`, every call fails so.
 */
function auxiliaryLlm(counter: TokenCounter, window: number, answer: AuxiliaryText | undefined, record: (event: StrategyEvent) => void): AuxiliaryLlm {
  let calls = 0;
  return async (request) => {
    const fail = (reason: AuxiliaryCallError['reason'], detail: string): never => {
      record({ kind: 'aux_failed', detail: `${request.purpose}: ${detail}` });
      throw new AuxiliaryCallError(reason, detail);
    };
    const violations = checkPairing(request.messages, { request: true });
    if (violations.length > 0) {
      const detail = `${request.purpose} request: ${describeViolations(violations)}`;
      record({ kind: 'pairing_violation', detail });
      throw new AuxiliaryCallError('invalid_context', detail);
    }
    const tokens = countRequest(counter, request.messages, request.purpose);
    if (tokens > window) fail('overflow', `context of ${tokens} tokens exceeds the ${window}-token window`);
    if (!answer) return fail('backend', 'no llm given to the adapter (pass the llm option to have summaries and checkpoints written)');
    let raw: unknown;
    try {
      raw = await answer(request);
    } catch (error) {
      return fail('backend', error instanceof Error ? error.message : String(error));
    }
    // The answer as given (its tokens are what a provider bills), and its text as the strategy uses it.
    calls += 1;
    const message = assistantMessage({ id: `llm:${request.purpose}:${calls}`, content: typeof raw === 'string' ? raw : '', origin: strategyOrigin('llm', request.purpose) });
    const answered = counter.countMessage(message) - PER_MESSAGE_TOKENS;
    // As a provider (and bench run) refuses it: the answer must fit the window beside its prompt.
    if (tokens + answered > window) fail('overflow', `a prompt of ${tokens} tokens plus an answer of ${answered} tokens exceeds the ${window}-token window`);
    const text = message.content.trim();
    if (text === '') fail('empty', 'answered with no text');
    return { message, text, usage: { promptTokens: tokens, completionTokens: answered } };
  };
}

/** Runs a strategy's hook: what it throws (a bug of the strategy's) becomes one line naming the strategy, the hook and the step. */
async function callHook<T>(strategy: string, hook: string, step: number, call: () => T | Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof CtxbenchError) throw error;
    throw new CtxbenchError('STRATEGY_INVALID', `strategy ${strategy}, ${hook} at step ${step}: threw: ${errorLine(error)}`);
  }
}

/** Calls taken in turn: each starts once the one before has ended, however it ended. */
export function inTurn(): <T>(work: () => Promise<T>) => Promise<T> {
  let queue: Promise<unknown> = Promise.resolve();
  return (work) => {
    const result = queue.then(work);
    queue = result.catch(() => undefined);
    return result;
  };
}

/** An adapter's options: an object (its fields are checked where they are read), or a one-line error. */
export function checkedOptions(options: unknown): void {
  if (typeof options !== 'object' || options === null) throw new CtxbenchError('OPTION_INVALID', `options: expected an object with strategy and window (got ${options === null ? 'null' : typeof options})`);
}

/** An adapter's optional callback option (`llm`, `onStep`): a function, or a one-line error naming it when it is something else. */
export function optionalFunction<F>(value: F | undefined, name: string): F | undefined {
  if (value !== undefined && typeof value !== 'function') throw new CtxbenchError('OPTION_INVALID', `${name}: expected a function (got ${value === null ? 'null' : typeof value})`);
  return value;
}

/**
 * A run of `settings.strategy` for one agent conversation. `answer` writes the strategy's summaries
 * and checkpoints (default: none, and such a request fails: the strategy takes its fallback path).
 */
export function createCompactionRun<P extends Params>(settings: CompactionSettings<P>, answer?: AuxiliaryText): CompactionRun {
  const chosen = chooseStrategy(settings as StrategyOptions); // the values are checked against the specs there
  const window = checkedWindow(settings.window);
  const encoding = checkedEncoding(settings.encoding ?? DEFAULT_ENCODING);
  const tools = readToolDefinitions(settings.tools, 'tools', (problem) => new CtxbenchError('OPTION_INVALID', problem));
  const name = chosen.strategy.name;
  let counter: TokenCounter | undefined;
  const files = createOffloadStore();
  const guarded = <T>(hook: string, step: number, call: () => T | Promise<T>): Promise<T> => callHook(name, hook, step, call);

  // The run's state: a new conversation resets it.
  let run: StrategyRun;
  let seen: readonly Message[]; // the history of the last request
  let sent: readonly Message[] | undefined; // the context of the last request
  let sentTokens = 0;
  let step: number;
  let session: number;
  let sessionSteps: number;
  // Consecutive contexts share most messages: each guard checks in time linear in what changed.
  let incoming: ReturnType<typeof createPairingGuard>; // what the strategy is given
  let outgoing: ReturnType<typeof createPairingGuard>; // what it sends
  let planProblem: ReturnType<typeof createPlanChecker>; // whether what a hook returned is a plan of messages
  const start = (): void => {
    run = chosen.strategy.create(chosen.params);
    [seen, sent, step, session, sessionSteps] = [[], undefined, 0, 1, 0];
    [incoming, outgoing, planProblem] = [createPairingGuard(), createPairingGuard(), createPlanChecker()];
  };
  /** The plan a hook returned, or STRATEGY_INVALID naming the strategy, the hook and the step. */
  const checkedPlan = <T>(plan: T, hook: string, at: number): T => {
    const problem = planProblem(plan, hook === 'afterResponse');
    if (problem !== undefined) throw new CtxbenchError('STRATEGY_INVALID', `strategy ${name}, ${hook} at step ${at}: ${problem}`);
    return plan;
  };
  start();

  // Calls are taken in turn: two at once (one agent serving two conversations) would mix the run's
  // state; each waits for the one before, and a conversation other than the last starts a new run.
  const turn = inTurn();
  return { files, strategy: chosen, step: (request) => turn(() => stepNow(request)) };

  async function stepNow({ history, usage: rawUsage, label = (i: number) => `messages[${i}]` }: AgentRequest): Promise<CompactionStep> {
    counter ??= withTools(await createTokenCounter(encoding), tools);
    const events: EventRecord[] = [];
    let requestStep = step; // where events are recorded: the previous request's for its response
    const record = (list: readonly StrategyEvent[] = []): void => list.forEach((e) => events.push({ ...e, step: requestStep, session }));
    const llm = auxiliaryLlm(counter, window, answer, (e) => record([e]));

    const shared = sharedPrefix(seen, history);
    if (sent && shared < seen.length) {
      const at = shared < history.length ? `${label(shared)} is not the one sent before` : `it has ${history.length} messages, ${seen.length} were sent before`;
      start();
      requestStep = step;
      record([{ kind: 'warning', detail: `a new conversation (${at}): ${name} starts a new run` }]);
    }
    const appended = history.slice(seen.length);
    const systemPrompt = history[0]?.role === 'system' ? history[0] : undefined;

    let messages: readonly Message[] = history;
    let appendedFrom = 0;
    let last: LastRequest | undefined;
    let replaced = false; // the strategy's answer to the last response replaced the session's messages
    if (sent) {
      const checked = checkUsage(rawUsage ?? {});
      record(checked.invalid.map((f) => ({ kind: 'warning', detail: `${f.field} = ${f.problem}: ignored, ctxbench's count used` })));
      const response = appended[0]?.role === 'assistant' ? appended[0] : undefined;
      const used: Usage = {
        promptTokens: checked.usage.promptTokens ?? sentTokens,
        completionTokens: checked.usage.completionTokens ?? (response ? counter.countMessage(response) - PER_MESSAGE_TOKENS : undefined),
      };
      requestStep = step - 1;
      const decision = response
        ? checkedPlan(await guarded('afterResponse', requestStep, () => run.afterResponse?.({ messages: sent!, sent: sent!, response, usage: used, step: requestStep, session, sessionSteps, window, counter: counter!, systemPrompt, llm, files })), 'afterResponse', requestStep)
        : undefined;
      if (decision) {
        record(decision.events);
        if (decision.stop !== undefined) throw new CompactionStopped(`${name} stopped the agent after step ${requestStep}: ${decision.stop}`, events);
        if (decision.newSession) [session, sessionSteps] = [session + 1, 0];
        messages = decision.messages;
        appendedFrom = messages.length;
        replaced = true;
      } else {
        messages = sent.concat(appended);
        appendedFrom = sent.length;
        last = { promptTokens: used.promptTokens, sentCount: sent.length };
      }
      requestStep = step;
    }
    const broken = incoming(messages, { request: true });
    if (broken.length > 0) {
      const index = broken[0]!.index;
      if (index < appendedFrom && replaced) {
        throw new CtxbenchError('STRATEGY_INVALID', `strategy ${name} broke tool-call pairing after step ${step - 1}: ${firstViolation(broken)}`);
      }
      const where = index >= appendedFrom ? label(index - appendedFrom + seen.length) : 'the conversation';
      throw new CtxbenchError('MESSAGES_INVALID', `${where}: breaks tool-call pairing, which no model accepts: ${firstViolation(broken)}`);
    }

    const plan = checkedPlan(await guarded('beforeRequest', step, () => run.beforeRequest({ messages, step, session, sessionSteps, window, counter: counter!, last, systemPrompt, appendedFrom, llm, files })), 'beforeRequest', step);
    if (plan.newSession) [session, sessionSteps] = [session + 1, 0];
    record(plan.events);
    if (plan.stop !== undefined) throw new CompactionStopped(`${name} stopped the agent at step ${step}: ${plan.stop}`, events);
    const context = plan.messages;
    if (context.length === 0) throw new CtxbenchError('STRATEGY_INVALID', `strategy ${name} returned no message to send at step ${step}`);
    const violations = outgoing(context, { request: true });
    if (violations.length > 0) {
      throw new CtxbenchError('STRATEGY_INVALID', `strategy ${name} broke tool-call pairing at step ${step}: ${firstViolation(violations)}`);
    }
    // Rule 4 of the INVARIANT: the conversation's messages in its order, none twice, the system prompt first.
    const order = checkOrder(history, context);
    if (order !== undefined) throw new CtxbenchError('STRATEGY_INVALID', `strategy ${name} broke the history's order at step ${step}: ${order}`);
    const tokens = counter.countContext(context);
    if (tokens > window) record([{ kind: 'overflow', detail: `context of ${tokens} tokens exceeds the ${window}-token window` }]);

    [seen, sent, sentTokens] = [history, context, tokens];
    sessionSteps += 1;
    step += 1;
    return { messages: context, events, tokens, step: step - 1, session };
  }
}
