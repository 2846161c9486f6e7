/**
 * `progressive-removal`: seed 004 (Dex, after Goose): context guards, progressive tool-response
 * removal, a summary fallback, a scratchpad and handoff checkpoints.
 *
 * Before each request the context is estimated. At 80% of the window a `warned` event; at 90% a
 * compaction: remove 0/10/20/50/100% of the tool rounds middle-out until the estimate is under 80% of
 * the compaction threshold; if even 100% is not enough, keep the last 10 messages (at a safe
 * boundary) and summarize the older ones (heuristic, or LLM with the seed's 7-section prompt) into
 * the scratchpad, which is re-inserted after the pinned task. The agent updates the scratchpad with
 * `SCRATCHPAD:` signals; a checkpoint with a handoff summary goes to the offload store after each
 * compaction and every `checkpointInterval` steps. `summary=heuristic` is the default because it is
 * what the seed ships: its guard calls the heuristic `compactHistory`, and its acceptance criteria
 * mark the LLM summary "deferred".
 *
 * Differences from the seed, on purpose (README "Strategies"):
 * - Seed defect: `filterToolResponses` drops tool responses and leaves their calls (orphans the
 *   providers reject). A removal here takes one assistant turn's calls AND all their results together
 *   (a parallel batch is one unit, as the seed's one tool-response message per turn is) and keeps the
 *   turn's text, the "conversational context" the seed means to preserve; a turn with no text goes.
 * - Seed defect: `compactHistory` slices the last 10 messages, which can start on a tool result; the
 *   cut here moves back to the start of its round (core/cut-points.ts), so it keeps at least 10.
 * - The seed's middle-out loop never reaches the newest of an odd number of tool responses (it keeps
 *   one at 100%, and removes nothing at all when there is only one); 100% here removes them all, as
 *   its "All tool responses removed" says. Every other selection is the seed's, in the seed's order.
 * - The latest round's results are never removed: the model has not seen them yet.
 * - Estimate: the run's tokenizer by default (`estimate=chars4` is the seed's bytes/4 + 50 per call),
 *   because the runner's overflow check counts with the tokenizer and chars/4 undercounts the bundled
 *   scenarios by up to 18%, more than the 10% between the compaction threshold and the window.
 * - When the summary fallback still leaves the context over the compaction threshold (large outputs
 *   in the last 10 messages), the removal levels run again on it; when there is nothing older to
 *   summarize, the deepest removal is kept. The seed would send the context as is.
 * - The task (the scenario's opening system and user messages) is pinned: Dex carries it in its
 *   system prompt, which compaction never touches.
 * - The agent's scratchpad and the compacted history are kept apart, so a later `SCRATCHPAD:` signal
 *   (recorded, so it never saw our summaries) does not erase the compacted history.
 * - The summary covers the rounds removed since the last summary too, in history order: after a
 *   removal, the seed's summary of the older messages finds their calls gone and lists nothing. When
 *   there is still nothing to list, the heuristic says how many messages it compacted: never empty.
 */
import { recentStart, seenToolRounds, type Span } from '../core/cut-points.js';
import { assistantMessage, droppedIds, strategyOrigin, userMessage, type AssistantMessage, type Message } from '../core/messages.js';
import { checkBelow } from '../core/params.js';
import { quote, type TextPart } from '../core/composed-text.js';
import { middleOutSelection } from './parts/middle-out.js';
import { AuxiliaryCallError, defineStrategy, type RequestPlan, type StrategyEvent, type StrategyInput } from '../core/strategy.js';
import type { TokenCounter } from '../core/tokens.js';

const NAME = 'progressive-removal';

/** Seed `RemovalLevels`: the percentages of tool responses tried, in order. */
export const REMOVAL_LEVELS = [0, 10, 20, 50, 100] as const;
/** Seed: `targetTokens := contextCompactAt * 80 / 100`. */
export const TARGET_OF_COMPACT = 0.8;

/** Seed `compactionPromptTemplate`, word for word; `%s` is the rendered history. */
export const COMPACTION_PROMPT_TEMPLATE = `Summarize this conversation history for session continuation.

**Conversation History:**
%s

Wrap your reasoning in <analysis> tags, then provide a structured summary with these sections:

1. **User Intent** - All goals and requests from the user
2. **Technical Context** - Tools, methods, patterns discovered
3. **Files & Code** - Files viewed/edited, significant code changes
4. **Errors & Fixes** - Problems encountered and how they were resolved
5. **Key Decisions** - Important choices made and rationale
6. **Pending Tasks** - Unfinished work items
7. **Current State** - Where work left off, what's next

Be thorough - this summary will be the only context for continuing the session.
Do not mention that you read a summary or that summarization occurred.`;

export const SUMMARY_SECTIONS = ['User Intent', 'Technical Context', 'Files & Code', 'Errors & Fixes', 'Key Decisions', 'Pending Tasks', 'Current State'] as const;

/** Seed `truncateForSummary`: longest message content in the summary prompt. */
const MAX_SUMMARY_CHARS = 2000;
/** Seed `estimateContextTokens`: "Tool call structure overhead". */
const TOOL_CALL_OVERHEAD = 50;
/** Dex has hats; a replay has one agent. */
const CURRENT_HAT = 'agent';

export type Estimate = 'tokenizer' | 'chars4';

// ---------------------------------------------------------------------------------------------------
// Estimation
// ---------------------------------------------------------------------------------------------------

export interface Estimator {
  message(m: Message): number;
  context(ms: readonly Message[]): number;
}

/** Seed `estimateContextTokens` for one message: len/4 of the content (Go's len counts bytes), len/4 of each call's input plus 50. */
export function chars4Estimate(m: Message): number {
  let tokens = Math.floor(Buffer.byteLength(m.content, 'utf8') / 4);
  if (m.role === 'assistant') {
    for (const call of m.toolCalls) tokens += Math.floor(Buffer.byteLength(call.arguments, 'utf8') / 4) + TOOL_CALL_OVERHEAD;
  }
  return tokens;
}

/** A run's estimator: the counter's (cached per message), or chars/4 with a cache of its own, so each message is measured once. */
export function estimator(kind: Estimate, counter: TokenCounter): Estimator {
  if (kind === 'tokenizer') return { message: (m) => counter.countMessage(m), context: (ms) => counter.countContext(ms) };
  const measured = new WeakMap<Message, number>();
  const message = (m: Message): number => {
    let tokens = measured.get(m);
    if (tokens === undefined) measured.set(m, (tokens = chars4Estimate(m)));
    return tokens;
  };
  return { message, context: (ms) => ms.reduce((sum, m) => sum + message(m), 0) };
}

// ---------------------------------------------------------------------------------------------------
// Middle-out removal
// ---------------------------------------------------------------------------------------------------

/** The assistant turn of a removed round without its calls; undefined when it had no text to keep. */
export type TurnStripper = (m: AssistantMessage) => AssistantMessage | undefined;

/**
 * A run's stripper: one replacement per original, so every level and step of the run shares it (and
 * the counter's cached count of it).
 */
export function createTurnStripper(): TurnStripper {
  const stripped = new WeakMap<AssistantMessage, AssistantMessage | null>();
  return (m) => {
    let turn = stripped.get(m);
    if (turn === undefined) {
      turn = m.content.trim() === '' ? null : assistantMessage({ id: m.id, content: m.content, usage: m.usage, origin: strategyOrigin(NAME, 'removed') });
      stripped.set(m, turn);
    }
    return turn ?? undefined;
  };
}

interface Removal {
  readonly messages: readonly Message[];
  readonly level: number;
  readonly removed: number;
  readonly candidates: number;
  readonly tokens: number;
  /** False when even 100% left the estimate at or over the target. */
  readonly under: boolean;
  /** The removed rounds as they were (calls and results), in history order. */
  readonly taken: readonly Message[];
}

/** `messages` with the given rounds removed (calls and results together, the turn's text kept). */
export function removeRounds(messages: readonly Message[], spans: readonly Span[], strip: TurnStripper = createTurnStripper()): Message[] {
  const out: Message[] = [];
  let next = 0;
  for (const span of [...spans].sort((a, b) => a.start - b.start)) {
    out.push(...messages.slice(next, span.start));
    const kept = strip(messages[span.start] as AssistantMessage);
    if (kept) out.push(kept);
    next = span.end;
  }
  out.push(...messages.slice(next));
  return out;
}

/**
 * Seed `compactHistoryProgressive`: tries each removal level in turn and returns the first whose
 * estimate is under `target`, or the deepest level (100%) when none is.
 */
export function removeProgressively(messages: readonly Message[], tokens: number, target: number, est: Estimator, strip: TurnStripper = createTurnStripper()): Removal {
  const spans = seenToolRounds(messages);
  const savings = spans.map((s) => {
    const kept = strip(messages[s.start] as AssistantMessage);
    const removed = messages.slice(s.start, s.end).reduce((sum, m) => sum + est.message(m), 0);
    return removed - (kept ? est.message(kept) : 0);
  });
  for (const level of REMOVAL_LEVELS) {
    const chosen = middleOutSelection(spans.length, level);
    const after = tokens - chosen.reduce((sum, i) => sum + savings[i]!, 0);
    if (after >= target && level !== 100) continue;
    const picked = chosen.map((i) => spans[i]!).sort((a, b) => a.start - b.start);
    const out = picked.length > 0 ? removeRounds(messages, picked, strip) : messages;
    const taken = picked.flatMap((span) => messages.slice(span.start, span.end));
    return { messages: out, level, removed: chosen.length, candidates: spans.length, tokens: after, under: after < target, taken };
  }
  throw new Error('unreachable: the removal levels end at 100%');
}

// ---------------------------------------------------------------------------------------------------
// Summary fallback
// ---------------------------------------------------------------------------------------------------

const isScratchpad = (m: Message): boolean => m.origin.source === 'strategy' && m.origin.action === 'scratchpad';

/** The pinned task: the leading system and user messages of the scenario (Dex keeps its task in the system prompt). */
export function pinnedCount(messages: readonly Message[]): number {
  const n = messages.findIndex((m) => m.origin.source !== 'scenario' || (m.role !== 'system' && m.role !== 'user'));
  return n === -1 ? messages.length : n;
}

/** Seed `parseScratchpadSignal`: from the first `SCRATCHPAD:` to the end, or to the next `\nSIGNAL:`. */
export function parseScratchpadSignal(text: string): string | undefined {
  const prefix = 'SCRATCHPAD:';
  const at = text.indexOf(prefix);
  if (at === -1) return undefined;
  let content = text.slice(at + prefix.length);
  const end = content.indexOf('\nSIGNAL:');
  if (end !== -1) content = content.slice(0, end);
  return content.trim();
}

const clip = (text: string, max = 200): string => (text.length > max ? `${text.slice(0, max)}...` : text);

/** The seed leaves `extractFirstSentence` undefined: up to the first sentence end or line break. */
function firstSentence(text: string): string {
  const trimmed = text.trim();
  const end = /[.!?](\s|$)|\n/.exec(trimmed);
  return clip(end ? trimmed.slice(0, end.index + (end[0] === '\n' ? 0 : 1)) : trimmed);
}

/** The seed leaves `extractQualityResult` undefined: the first line that names a QUALITY_ gate. */
function qualityResult(text: string): string {
  return clip(text.split('\n').find((l) => l.includes('QUALITY_'))!.trim());
}

/**
 * Seed `summarizeMessages`: tool calls, decisions ("decided"/"choosing") and quality gates. Tool
 * results count as user messages here, as they are in the seed's (Anthropic) message model. Empty
 * when the messages hold none of these (see `compactedSummary`).
 */
export function heuristicSummary(messages: readonly Message[]): string {
  let summary = '';
  for (const m of messages) {
    if (m.role === 'assistant') {
      for (const call of m.toolCalls) summary += `- Called ${call.name}\n`;
      if (m.content.includes('decided') || m.content.includes('choosing')) summary += `- Decision: ${firstSentence(m.content)}\n`;
    }
    if ((m.role === 'user' || m.role === 'tool') && m.content.includes('QUALITY_')) summary += `- Quality gate: ${qualityResult(m.content)}\n`;
  }
  return summary;
}

/** The seed's heuristic summary, or a line saying what was compacted when it finds nothing to list: never empty. */
export function compactedSummary(messages: readonly Message[]): string {
  return heuristicSummary(messages) || `- ${messages.length} earlier messages compacted: no tool call, decision or quality gate in them\n`;
}

/** `messages` in the order first seen (unknown ones last), each id once: its first copy wins. */
function inHistoryOrder(messages: readonly Message[], position: ReadonlyMap<string, number>): Message[] {
  const unique = new Map<string, Message>();
  for (const m of messages) if (!unique.has(m.id)) unique.set(m.id, m);
  const at = (m: Message): number => position.get(m.id) ?? Infinity;
  return [...unique.values()].sort((a, b) => at(a) - at(b));
}

/** Seed `truncateForSummary` (by characters, never splitting a surrogate pair). */
function truncateForSummary(content: string): string {
  if (content.length <= MAX_SUMMARY_CHARS) return content;
  const high = content.charCodeAt(MAX_SUMMARY_CHARS - 1);
  const end = high >= 0xd800 && high <= 0xdbff ? MAX_SUMMARY_CHARS - 1 : MAX_SUMMARY_CHARS;
  return `${content.slice(0, end)}... [truncated]`;
}

/**
 * Seed `buildCompactionPrompt` as a tool-less request: the system prompt (every request keeps it
 * first), the template up to and with the history as one user message (the span the summarizer
 * reads), the rest of the template as the closing instruction.
 */
export function summaryRequest(system: readonly Message[], span: readonly Message[], step: number): Message[] {
  const history = span.map((m) => `[${m.role === 'assistant' ? 'assistant' : 'user'}]: ${truncateForSummary(m.content)}\n\n`).join('');
  const [head, tail] = COMPACTION_PROMPT_TEMPLATE.split('%s') as [string, string];
  const origin = strategyOrigin(NAME, 'summary-request');
  return [
    ...system,
    userMessage({ id: `${NAME}:summary-history:${step}`, content: `${head}${history}`, origin }),
    userMessage({ id: `${NAME}:summary-instruction:${step}`, content: tail.trimStart(), origin }),
  ];
}

/** The prompt asks for reasoning in <analysis> tags before the summary: only the summary is kept. */
export function stripAnalysis(text: string): string {
  const stripped = text.replace(/<analysis>[\s\S]*?<\/analysis>/g, '').trim();
  return stripped === '' ? text.trim() : stripped;
}

// ---------------------------------------------------------------------------------------------------
// Handoff checkpoints
// ---------------------------------------------------------------------------------------------------

/** Stand for the scratchpad and the message ids in a checkpoint's JSON until their text is put in (saveCheckpoint). */
const SCRATCHPAD_MARK = '\u0000scratchpad\u0000';
const IDS_MARK = '\u0000ids\u0000';
const [SCRATCHPAD_JSON, IDS_JSON] = [JSON.stringify(SCRATCHPAD_MARK), JSON.stringify(IDS_MARK)];
/** Message ids per block of a checkpoint's id list, each block's text made once (idBlocks). */
const IDS_PER_BLOCK = 256;

/**
 * The text of a checkpoint's `messageIds` as JSON.stringify(list, null, 2) writes it at the state's
 * first level, in parts: each whole block of IDS_PER_BLOCK messages a quote, made once while the same
 * messages stand at the start of a block (a context grows at its end between checkpoints, and without
 * a compaction it grows with the task), so the checkpoints of a long run share their lists' text.
 */
function idBlocks(): (context: readonly Message[]) => TextPart[] {
  const blocks = new WeakMap<Message, { readonly messages: readonly Message[]; readonly text: string }>();
  const lines = (messages: readonly Message[]): string => messages.map((m) => `\n    ${JSON.stringify(m.id)}`).join(',');
  return (context) => {
    if (context.length === 0) return ['[]'];
    const parts: TextPart[] = ['['];
    let from = 0;
    for (; from + IDS_PER_BLOCK <= context.length; from += IDS_PER_BLOCK) {
      const messages = context.slice(from, from + IDS_PER_BLOCK);
      let block = blocks.get(messages[0]!);
      if (block === undefined || block.messages.some((m, i) => m !== messages[i])) blocks.set(messages[0]!, (block = { messages, text: lines(messages) }));
      if (from > 0) parts.push(',');
      parts.push(quote(block, block.text));
    }
    if (from < context.length) parts.push(`${from > 0 ? ',' : ''}${lines(context.slice(from))}`);
    parts.push('\n  ]');
    return parts;
  };
}

/** Seed `HandoffSummary`, minus what a replay does not have (wall clock, git); the step stands for the time. */
export interface HandoffSummary {
  readonly generatedAtStep: number;
  readonly taskTitle: string;
  readonly currentHat: string;
  readonly completedItems: readonly string[];
  readonly remainingItems: readonly string[];
  readonly keyDecisions: readonly string[];
  readonly continuationPrompt: string;
}

/** The lines under a `## heading` of a markdown document, up to the next heading. */
function section(doc: string, heading: string): string[] {
  const lines = doc.split('\n');
  const start = lines.findIndex((l) => l.trim().toLowerCase() === `## ${heading.toLowerCase()}`);
  if (start === -1) return [];
  const end = lines.findIndex((l, i) => i > start && l.trimStart().startsWith('#'));
  return lines.slice(start + 1, end === -1 ? undefined : end);
}

/**
 * Seed `generateHandoff`. Dex reads progress from its task checklist; a replay's checklist is the
 * scratchpad's "Current Plan" (`[x]` done, `[ ]` to do). Key decisions come from the scratchpad, as in
 * the seed (`extractDecisionsFromScratchpad`).
 */
export function generateHandoff(task: string, scratchpad: string, step: number): HandoffSummary {
  const items = section(scratchpad, 'Current Plan').flatMap((l) => {
    const m = /^\s*(?:\d+\.|[-*])\s*\[([ xX])\]\s*(.+)$/.exec(l);
    return m ? [{ done: m[1] !== ' ', text: m[2]!.trim() }] : [];
  });
  const remainingItems = items.filter((i) => !i.done).map((i) => i.text);
  const taskTitle = clip(task.split('\n').find((l) => l.trim() !== '')?.trim() ?? '', 120);
  return {
    generatedAtStep: step,
    taskTitle,
    currentHat: CURRENT_HAT,
    completedItems: items.filter((i) => i.done).map((i) => i.text),
    remainingItems,
    keyDecisions: section(scratchpad, 'Key Decisions').flatMap((l) => /^\s*[-*]\s+(.+)$/.exec(l)?.slice(1) ?? []),
    continuationPrompt: `Continue working on: ${taskTitle}\nCurrent phase: ${CURRENT_HAT}\nNext step: ${remainingItems[0] ?? 'Complete the task'}`,
  };
}

// ---------------------------------------------------------------------------------------------------
// The strategy
// ---------------------------------------------------------------------------------------------------

const pct = (tokens: number, window: number): string => `${Math.round((tokens / window) * 100)}%`;

export const progressiveRemovalStrategy = defineStrategy({
  name: NAME,
  seed: '004',
  summary: 'Seed 004: at 90%, remove 0/10/20/50/100% of tool rounds middle-out; else keep the last 10 messages and summarize the rest into a scratchpad.',
  params: {
    warnThreshold: { kind: 'fraction', default: 0.8, description: 'Record a "warned" event above this share of the window (ContextWarnPct).' },
    compactThreshold: { kind: 'fraction', default: 0.9, description: 'Compact above this share of the window, down to 80% of it (ContextCompactPct).' },
    recentMessages: { kind: 'integer', default: 10, min: 1, max: 1000, description: 'Messages the summary fallback keeps verbatim, moved back to a round start (MaxRecentMessages).' },
    summary: { kind: 'choice', default: 'heuristic', values: ['heuristic', 'llm'], description: 'Summary of the older messages: the seed\'s extraction of calls, decisions and quality gates, or an LLM with the 7-section prompt (heuristic on failure).' },
    estimate: { kind: 'choice', default: 'tokenizer', values: ['tokenizer', 'chars4'], description: 'Context estimate: the run\'s tokenizer (what the overflow check counts), or the seed\'s bytes/4 plus 50 per tool call.' },
    checkpointInterval: { kind: 'integer', default: 5, min: 1, max: 1000, description: 'Steps between checkpoints written to the offload store (one is also written after every compaction).' },
    generateHandoff: { kind: 'boolean', default: true, description: 'Add the handoff summary (task, plan progress, key decisions, continuation prompt) to each checkpoint.' },
  },
  checkParams: checkBelow('warnThreshold', 'compactThreshold'),
  thresholds: (p) => [
    { label: 'warn', fraction: p.warnThreshold },
    { label: 'compact', fraction: p.compactThreshold },
    { label: 'compaction target', fraction: p.compactThreshold * TARGET_OF_COMPACT },
  ],
  create(p) {
    const strip = createTurnStripper();
    let estimate: Estimator | undefined; // made at the first request, from the run's counter
    let agentScratchpad = '';
    let compactedHistory = '';
    // The rounds removed since the last summary, as they were: the summary lists their calls, which
    // are no longer in the messages it compacts (a stripped turn keeps only its text).
    const removedSinceSummary: Message[] = [];
    const position = new Map<string, number>(); // each message's first-seen order: the history's

    const scratchpad = (): string => (agentScratchpad + compactedHistory).trim();
    // The scratchpad as it stands (it changes with a signal or a summary), its JSON text and what the
    // handoff reads of it: made once per version, not once per checkpoint. It grows with every
    // summary, and a checkpoint is written every few steps.
    let version: { agent: string; compacted: string; json: string; task?: string; handoff?: HandoffSummary } | undefined;
    const currentVersion = (): NonNullable<typeof version> => {
      if (version?.agent !== agentScratchpad || version.compacted !== compactedHistory) {
        version = { agent: agentScratchpad, compacted: compactedHistory, json: JSON.stringify(scratchpad()) };
      }
      return version;
    };

    const idsOf = idBlocks();

    /**
     * Seed `saveCheckpoint`: the checkpoint state (and handoff) in the run's offload store, as
     * JSON.stringify(state, null, 2) writes it. The scratchpad's text is a quote of its version, and
     * the message ids' blocks quotes of theirs (core/composed-text.ts): the store keeps each once and
     * its index reads each once, however many checkpoints hold them.
     */
    const saveCheckpoint = (input: Pick<StrategyInput, 'files' | 'step'>, context: readonly Message[], reason: string): void => {
      const task = context.slice(0, pinnedCount(context)).find((m) => m.role === 'user')?.content ?? '';
      const current = currentVersion();
      let handoff: HandoffSummary | undefined;
      if (p.generateHandoff) {
        if (current.task !== task || current.handoff === undefined) [current.task, current.handoff] = [task, generateHandoff(task, scratchpad(), input.step)];
        handoff = { ...current.handoff, generatedAtStep: input.step };
      }
      const state = { iteration: input.step, reason, scratchpad: SCRATCHPAD_MARK, messageIds: IDS_MARK, ...(handoff ? { handoff } : {}) };
      const text = JSON.stringify(state, null, 2);
      // Each mark's first occurrence is its own: only the numbers and the reason come before the
      // scratchpad, and the ids come before the handoff.
      const at = text.indexOf(SCRATCHPAD_JSON);
      const ids = text.indexOf(IDS_JSON, at);
      const parts = [text.slice(0, at), quote(current, current.json), text.slice(at + SCRATCHPAD_JSON.length, ids), ...idsOf(context), text.slice(ids + IDS_JSON.length)];
      input.files.write(`checkpoints/step-${String(input.step).padStart(4, '0')}-${reason}.json`, parts);
    };

    const summarize = async (input: StrategyInput, span: readonly Message[]): Promise<{ text: string; how: string }> => {
      if (p.summary === 'heuristic') return { text: compactedSummary(span), how: 'heuristic' };
      const system = input.messages[0]?.role === 'system' ? [input.messages[0]] : [];
      try {
        const answer = await input.llm({ messages: summaryRequest(system, span, input.step), purpose: 'summary', expect: { sections: SUMMARY_SECTIONS } });
        return { text: stripAnalysis(answer.text), how: 'llm' };
      } catch (error) {
        if (!(error instanceof AuxiliaryCallError)) throw error;
        return { text: compactedSummary(span), how: `heuristic, the llm summary failed (${error.reason})` };
      }
    };

    /** Seed `compactHistoryWithSummary`: pinned task + scratchpad (with the new summary) + the recent messages. */
    const summarizeOlder = async (input: StrategyInput, messages: readonly Message[], est: Estimator): Promise<{ messages: Message[]; event: StrategyEvent } | undefined> => {
      const from = pinnedCount(messages);
      // Moved back to a round start: the seed's plain slice of the last N could start on a tool result.
      const cut = recentStart(messages, p.recentMessages, from);
      const span = messages.slice(from, cut).filter((m) => !isScratchpad(m));
      if (span.length === 0) return undefined;
      const earlier = removedSinceSummary.splice(0);
      const { text, how } = await summarize(input, inHistoryOrder([...earlier, ...span], position));
      compactedHistory += `\n\n## Compacted History\n${text}`;
      const note = userMessage({ id: `${NAME}:scratchpad:${input.step}`, content: `# Task Scratchpad\n\n${scratchpad()}`, origin: strategyOrigin(NAME, 'scratchpad') });
      const out = [...messages.slice(0, from), note, ...messages.slice(cut)];
      const removedEarlier = earlier.length > 0 ? ` and ${earlier.length} removed earlier` : '';
      const detail = `summarized ${span.length} older messages${removedEarlier} (${how}) into the scratchpad; kept the last ${messages.length - cut}`;
      return {
        messages: out,
        event: { kind: 'summarized', messageId: note.id, messageIds: span.map((m) => m.id), detail, text: note.content, tokensBefore: est.context(messages), tokensAfter: est.context(out) },
      };
    };

    /** Keeps removal `r` of `from`: its event, and its rounds wait for the next summary. Returns the messages. */
    const keepRemoval = (r: Removal, from: readonly Message[], before: number, events: StrategyEvent[]): readonly Message[] => {
      removedSinceSummary.push(...r.taken);
      events.push({
        kind: 'removed',
        messageIds: droppedIds(from, r.messages),
        detail: `removed ${r.removed} of ${r.candidates} tool rounds (calls with their results) at level ${r.level}%, middle-out`,
        tokensBefore: before,
        tokensAfter: r.tokens,
      });
      return r.messages;
    };

    const compact = async (input: StrategyInput, tokens: number, est: Estimator): Promise<RequestPlan> => {
      const compactAt = p.compactThreshold * input.window;
      const target = compactAt * TARGET_OF_COMPACT;
      const removal = removeProgressively(input.messages, tokens, target, est, strip);
      const events: StrategyEvent[] = [];
      let messages: readonly Message[];
      if (removal.under) {
        messages = keepRemoval(removal, input.messages, tokens, events);
      } else {
        // As in the seed, the fallback starts again from the messages as they were.
        const fallback = await summarizeOlder(input, input.messages, est);
        if (fallback) {
          events.push(fallback.event);
          messages = fallback.messages;
          const after = est.context(messages);
          const again = after >= compactAt ? removeProgressively(messages, after, target, est, strip) : undefined;
          if (again && again.removed > 0) messages = keepRemoval(again, messages, after, events);
        } else if (removal.removed > 0) {
          messages = keepRemoval(removal, input.messages, tokens, events);
        } else {
          return { messages: input.messages, events: [{ kind: 'warning', detail: `context at ${pct(tokens, input.window)} of the window: nothing left to remove or summarize`, tokensBefore: tokens }] };
        }
      }
      saveCheckpoint(input, messages, 'compaction');
      return { messages, events };
    };

    return {
      async beforeRequest(input: StrategyInput): Promise<RequestPlan> {
        for (const m of input.messages.slice(input.appendedFrom)) if (!position.has(m.id)) position.set(m.id, position.size);
        const est = (estimate ??= estimator(p.estimate, input.counter));
        const tokens = est.context(input.messages);
        if (tokens >= p.compactThreshold * input.window) return compact(input, tokens, est);
        if (tokens < p.warnThreshold * input.window) return { messages: input.messages };
        const detail = `context at ${pct(tokens, input.window)} of the window (${p.estimate} estimate); compaction at ${pct(p.compactThreshold * input.window, input.window)}`;
        return { messages: input.messages, events: [{ kind: 'warned', detail, tokensBefore: tokens }] };
      },

      afterResponse(input) {
        const signal = parseScratchpadSignal(input.response.content);
        if (signal !== undefined) agentScratchpad = signal;
        if ((input.step + 1) % p.checkpointInterval === 0) saveCheckpoint(input, [...input.sent, input.response], 'interval');
        return undefined;
      },
    };
  },
});
