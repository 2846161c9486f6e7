/**
 * `clear-tool-results`: Anthropic's context edit `clear_tool_uses_20250919`, as LangChain's
 * `ClearToolUsesEdit` reimplements it client-side (shared/design/anchors.md).
 *
 * When the context exceeds `triggerTokens`, the content of every tool result but the most recent
 * `keep` is replaced by a placeholder; ids, calls and reasoning stay. `excludeTools` are never
 * cleared; `clearToolInputs` also empties the arguments of the cleared calls. `clearAtLeast` follows
 * Anthropic: when clearing would free fewer tokens than that, nothing is cleared (the cache
 * invalidation would not pay off). LangChain reads it differently (stop clearing once that much is
 * freed); ctxbench follows Anthropic, whose parameter it is.
 *
 * As both apply it (Anthropic server-side, LangChain to a copy of each model request), the edit is
 * made anew on every request from the full, unedited history: the trigger is the full history's size,
 * and once it is over, every request keeps only the last `keep` results. A cleared result is the same
 * message object from one request to the next, so the cached prefix holds until a new one is cleared.
 *
 * The `lines-omitted` placeholder is the JetBrains "Complexity Trap" masking (SWE-agent's
 * `last_n_observations`): `Old environment output: (K lines omitted)`.
 *
 * Difference from the field, on purpose: the results of the latest assistant turn are never cleared,
 * whatever `keep` says, since the model has not seen them yet (as in `masking`).
 */
import { appendOnlyCopy, unchangedPrefix } from '../core/append-only.js';
import { unseenFrom } from '../core/cut-points.js';
import { strategyOrigin, withContent, type Message, type ToolMessage } from '../core/messages.js';
import { defineStrategy, type StrategyEvent } from '../core/strategy.js';
import type { TokenCounter } from '../core/tokens.js';
import { withToolArguments } from './parts/message-edits.js';

const NAME = 'clear-tool-results';

export type PlaceholderStyle = 'cleared' | 'lines-omitted';

/** LangChain's DEFAULT_TOOL_PLACEHOLDER for Anthropic-style clearing. */
export const CLEARED_PLACEHOLDER = '[cleared]';

/** Lines as Python's str.splitlines() counts them (SWE-agent counts K this way): a final newline ends a line, it does not start one. */
export function lineCount(text: string): number {
  if (text === '') return 0;
  const breaks = text.match(/\r\n|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]/g)?.length ?? 0;
  const endsWithBreak = /(?:\r\n|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029])$/.test(text);
  return breaks + (endsWithBreak ? 0 : 1);
}

/** The Complexity Trap placeholder, verbatim from SWE-agent's LastNObservations. */
export function linesOmitted(output: string): string {
  return `Old environment output: (${lineCount(output)} lines omitted)`;
}

export function placeholderFor(style: PlaceholderStyle, output: string): string {
  return style === 'cleared' ? CLEARED_PLACEHOLDER : linesOmitted(output);
}

/** `excludeTools` as a set: comma-separated names, blanks ignored. */
export function toolNames(list: string): ReadonlySet<string> {
  return new Set(list.split(',').map((name) => name.trim()).filter((name) => name !== ''));
}

export interface ClearOptions {
  /** Strategy named in the origins of the messages it replaces. */
  readonly strategy: string;
  /** Each result's cleared copy, reused whenever the same result is cleared again. Default: none kept. */
  readonly memo?: WeakMap<Message, Message>;
  /** Most recent tool results left intact. */
  readonly keep: number;
  readonly placeholder: PlaceholderStyle;
  readonly excludeTools?: ReadonlySet<string>;
  readonly clearToolInputs?: boolean;
}

export interface ClearOutcome {
  /** The same array when nothing was cleared. */
  readonly messages: readonly Message[];
  readonly events: StrategyEvent[];
  /** Tokens saved (can be negative when placeholders outgrow tiny outputs). */
  readonly freed: number;
  /** The messages replaced, by id, as they were before (for a summarizer that wants the originals). */
  readonly originals: ReadonlyMap<string, Message>;
}

/** Tool results replaced by this module carry this action; they are never cleared twice. */
export const CLEARED_ACTION = 'cleared';
const isCleared = (m: Message): boolean => m.origin.source === 'strategy' && m.origin.action === CLEARED_ACTION;

/** Indices (from `from` on) of the tool results to clear: all but the last `keep`, unseen ones, excluded tools and already-cleared ones. */
function clearable(messages: readonly Message[], options: ClearOptions, from = 0): number[] {
  // From `from` on: the last `keep` results of the whole are the last `keep` of any suffix that has
  // that many (and a suffix with fewer holds none older than them).
  const tools: number[] = [];
  for (let i = from; i < messages.length; i++) if (messages[i]!.role === 'tool') tools.push(i);
  const older = tools.slice(0, Math.max(0, tools.length - options.keep));
  const limit = unseenFrom(messages);
  return older.filter((i) => {
    const m = messages[i]!;
    return i < limit && m.role === 'tool' && !isCleared(m) && !options.excludeTools?.has(m.name);
  });
}

/** A tool result replaced by its placeholder (the memo's copy, when it has one), its event and the tokens that frees. */
function clearResult(m: ToolMessage, counter: TokenCounter, options: ClearOptions): { readonly cleared: Message; readonly event: StrategyEvent; readonly freed: number } {
  const cleared = options.memo?.get(m) ?? withContent(m, placeholderFor(options.placeholder, m.content), strategyOrigin(options.strategy, CLEARED_ACTION));
  options.memo?.set(m, cleared);
  const before = counter.countMessage(m);
  const after = counter.countMessage(cleared);
  return { cleared, freed: before - after, event: { kind: 'masked', messageId: m.id, detail: `${m.name} output cleared`, tokensBefore: before, tokensAfter: after } };
}

/**
 * Replaces the content of older tool results with a placeholder (ids kept), and with
 * `clearToolInputs` the arguments of their calls with `{}`. Pure: returns new arrays and messages.
 */
export function clearToolResults(messages: readonly Message[], counter: TokenCounter, options: ClearOptions): ClearOutcome {
  const targets = clearable(messages, options);
  if (targets.length === 0) return { messages, events: [], freed: 0, originals: new Map() };
  const out = [...messages];
  const events: StrategyEvent[] = [];
  const originals = new Map<string, Message>();
  const clearedCalls = new Set<string>();
  let freed = 0;
  for (const i of targets) {
    const m = messages[i]!;
    if (m.role !== 'tool') continue;
    const result = clearResult(m, counter, options);
    out[i] = result.cleared;
    originals.set(m.id, m);
    clearedCalls.add(m.toolCallId);
    freed += result.freed;
    events.push(result.event);
  }
  if (options.clearToolInputs) {
    out.forEach((m, i) => {
      if (m.role !== 'assistant' || !m.toolCalls.some((c) => clearedCalls.has(c.id) && c.arguments !== '{}')) return;
      // Ids and names stay, so the results still pair with their calls.
      const edited = withToolArguments(m, (c) => (clearedCalls.has(c.id) ? '{}' : c.arguments), strategyOrigin(options.strategy, 'inputs-cleared'));
      const before = counter.countMessage(m);
      const after = counter.countMessage(edited);
      out[i] = edited;
      originals.set(m.id, m);
      freed += before - after;
      events.push({ kind: 'masked', messageId: m.id, detail: 'tool call arguments cleared', tokensBefore: before, tokensAfter: after });
    });
  }
  return { messages: out, events, freed, originals };
}

/** The last clearing of a growing history, to go on from (clearAppended). */
export interface Clearing {
  /** The messages cleared; clearAppended goes on from them while they are the next history's prefix. */
  readonly input: readonly Message[];
  readonly inputLength: number;
  readonly messages: readonly Message[];
  /** One per result replaced, in the order of the messages. */
  readonly events: readonly StrategyEvent[];
  /** How many of `events` were taken over from the clearing it went on from (0: it started over). */
  readonly carried: number;
  readonly freed: number;
  /** Index of the last result replaced (-1: none). */
  readonly lastTarget: number;
}

/**
 * clearToolResults(history) (without `clearToolInputs`), given the clearing of an earlier history
 * that `history` extends by appending: the results cleared then are taken over as they were and only
 * the ones clearable since are cleared (targets only grow as a history grows: more results are older
 * than the last `keep`, and the latest assistant turn only moves on). Per request, then, the work is
 * the new results, not all results again: a replay of n steps costs O(n) clearings, not O(n^2).
 */
export function clearAppended(previous: Clearing | undefined, history: readonly Message[], counter: TokenCounter, options: ClearOptions): Clearing {
  const continues =
    previous !== undefined &&
    previous.inputLength <= history.length &&
    (unchangedPrefix(history, previous.input, previous.inputLength) === previous.inputLength || sharesPrefix(history, previous.input, previous.inputLength));
  const from: Omit<Clearing, 'input' | 'carried'> = continues ? previous : { messages: [], events: [], freed: 0, lastTarget: -1, inputLength: 0 };
  const messages = from.messages.concat(history.slice(from.inputLength));
  const events = from.events.slice();
  let { freed, lastTarget } = from;
  for (const i of clearable(history, options, from.lastTarget + 1)) {
    const m = history[i]!;
    if (m.role !== 'tool') continue;
    const result = clearResult(m, counter, options);
    messages[i] = result.cleared;
    freed += result.freed;
    lastTarget = i;
    events.push(result.event);
  }
  return { input: history, inputLength: history.length, messages, events, carried: from.events.length, freed, lastTarget };
}

/** Whether `messages` starts with the first `length` messages of `prefix`, the same objects. */
function sharesPrefix(messages: readonly Message[], prefix: readonly Message[], length: number): boolean {
  for (let i = 0; i < length; i++) if (messages[i] !== prefix[i]) return false;
  return true;
}

/** Tool names: letters, digits, `_ . : -`, comma-separated. */
const TOOL_LIST = /^[\w.:\-, ]*$/;

export const clearToolResultsStrategy = defineStrategy({
  name: NAME,
  summary: "Anthropic's clear_tool_uses: above a token trigger, replace all but the last N tool results with a placeholder.",
  params: {
    triggerTokens: { kind: 'integer', default: 100_000, min: 0, max: 10_000_000, description: 'Clear when the context exceeds this many tokens (Anthropic: 100,000 input tokens); 0 = on every request.' },
    keep: { kind: 'integer', default: 3, min: 0, max: 10_000, description: 'Most recent tool results kept intact (Anthropic: 3 tool uses).' },
    clearAtLeast: { kind: 'integer', default: 0, min: 0, max: 10_000_000, description: 'Clear only if at least this many tokens would be freed, else leave the context alone (Anthropic clear_at_least; default none).' },
    excludeTools: { kind: 'text', default: '', pattern: TOOL_LIST, format: 'a comma-separated list of tool names', description: 'Tools whose results are never cleared (Anthropic exclude_tools).' },
    clearToolInputs: { kind: 'boolean', default: false, description: 'Also replace the arguments of the cleared calls with {} (Anthropic clear_tool_inputs).' },
    placeholder: { kind: 'choice', default: 'cleared', values: ['cleared', 'lines-omitted'], description: '"[cleared]" (Anthropic, LangChain) or "Old environment output: (K lines omitted)" (JetBrains Complexity Trap).' },
  },
  // The trigger is absolute tokens, not a share of the window: nothing to draw on a window-relative curve.
  create(p) {
    const options: ClearOptions = { strategy: NAME, keep: p.keep, placeholder: p.placeholder, excludeTools: toolNames(p.excludeTools), clearToolInputs: p.clearToolInputs, memo: new WeakMap() };
    // The full, unedited history, as the client keeps it: the runner's while requests go unedited,
    // then this strategy's own append-only copy (owned), appended to in place, never copied per request.
    let history: readonly Message[] = [];
    let owned: Message[] | undefined;
    let sentEdited = false; // the last request was edited, so the session holds the edited copy
    // What the requests sent edited since the last one sent unedited have reported: events name only
    // what is new (targets only grow, so this is what the last request cleared).
    const reported = new Set<string>();
    let clearing: Clearing | undefined; // the last clearing of the history, to go on from
    return {
      beforeRequest(input) {
        const { messages, counter } = input;
        // The session's messages are the last request plus what was appended since.
        if (sentEdited) {
          if (owned === undefined) owned = appendOnlyCopy(history, messages.slice(input.appendedFrom));
          else for (let i = input.appendedFrom; i < messages.length; i++) owned.push(messages[i]!);
          history = owned;
        } else [history, owned] = [messages, undefined];
        let outcome: Pick<Clearing, 'messages' | 'events' | 'freed'> | undefined;
        // The events a clearing took over from the last request's, sent edited, were reported then.
        let known = 0;
        if (p.triggerTokens === 0 || counter.countContext(history) > p.triggerTokens) {
          if (p.clearToolInputs) outcome = clearToolResults(history, counter, options);
          else {
            outcome = clearing = clearAppended(clearing, history, counter, options);
            if (sentEdited) known = clearing.carried;
          }
        }
        if (!outcome || outcome.events.length === 0 || (p.clearAtLeast > 0 && outcome.freed < p.clearAtLeast)) {
          sentEdited = false;
          reported.clear();
          return { messages: history };
        }
        const events = outcome.events.slice(known).filter((e) => !reported.has(e.messageId!));
        events.forEach((e) => reported.add(e.messageId!));
        sentEdited = true;
        return { messages: outcome.messages, events };
      },
    };
  },
});
