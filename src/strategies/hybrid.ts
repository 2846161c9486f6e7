/**
 * `hybrid`: the JetBrains "Complexity Trap" hybrid (arXiv 2508.21433; config
 * `..._N=21_M=10_masking_M=10.yaml`): an LLM summary of the oldest turns, then observation masking of
 * what remains. In SWE-agent terms, `summarize_every_n_turns` (n=21, keep_last_m_turns=10, static
 * checkpointing) followed by `last_n_observations` (n=10).
 *
 * - A turn is one recorded agent step: an assistant message, its tool results and any user message
 *   that follows, up to the next assistant message. Cutting between turns never splits a call from
 *   its result.
 * - Trigger (the paper's): once the context holds N+M turns besides the summary, the oldest N are
 *   summarized and the last M stay verbatim. Only the latest summary is kept (static checkpointing);
 *   the summarizer sees the previous one, or the problem statement before the first.
 * - ctxbench addition, a safety net the paper does not need at its window sizes: when the (masked)
 *   context exceeds `trigger` of the window, every turn but the last M is summarized early, instead
 *   of overflowing (a fork of the paper's code, Recursive-Safeguarding/the-complexity-trap, has the
 *   same as `enable_limit_aware_trigger` + `pure_on_demand`, at 0.9 by default).
 * - Then, on every request, all tool results but the last `keepObservations` are replaced by
 *   `Old environment output: (K lines omitted)` (the clear-tool-results module).
 * - The summary request is tool-less: the system prompt, the turns written out as text (the paper's
 *   `<TURN-i>` format, with the ORIGINAL outputs of masked results, as SWE-agent summarizes the raw
 *   history), and the instruction last. If that request would not fit the window, the turns are
 *   written as the context holds them (masked). If the call fails, nothing is summarized this step and
 *   masking alone goes on (the paper's fallback when a summary cannot be made: keep the turns).
 *
 * Differences from the paper, on purpose: the summarizer's system template is sent as the last user
 * message (ctxbench keeps the agent's system prompt first in every request), so its call to action
 * says "following these instructions" instead of "from the beginning of the prompt"; the pressure
 * trigger above; results of the latest assistant turn are never masked.
 */
import { composedUserMessage, joinedParts, quote, type TextPart } from '../core/composed-text.js';
import { turns } from '../core/cut-points.js';
import { assistantMessage, strategyOrigin, userMessage, type Message } from '../core/messages.js';
import type { ParamSpecs, ParamsOf } from '../core/params.js';
import { AuxiliaryCallError, defineStrategy, type RequestPlan, type StrategyInput } from '../core/strategy.js';
import { clearToolResults } from './clear-tool-results.js';
import { measurePressure } from './parts/pressure.js';

const NAME = 'hybrid';

const PARAMS = {
  summarizeTurns: { kind: 'integer', default: 21, min: 1, max: 1000, description: 'Oldest turns summarized at once (the paper\'s N=21).' },
  keepTurns: { kind: 'integer', default: 10, min: 0, max: 1000, description: 'Most recent turns never summarized; summary when N + M turns are held (the paper\'s M=10).' },
  keepObservations: { kind: 'integer', default: 10, min: 1, max: 10_000, description: 'Most recent tool outputs left unmasked (the paper\'s masking M=10).' },
  trigger: { kind: 'fraction', default: 0.9, description: 'Also summarize all but the last M turns when the context exceeds this share of the window (ctxbench safety net; 0.9 as the limit-aware trigger of a fork of the paper\'s code).' },
} as const satisfies ParamSpecs;

export type HybridParams = ParamsOf<typeof PARAMS>;

/** The paper's summarizer prompt (`summary_system_template`), word for word. */
export const SUMMARY_TEMPLATE = `You are maintaining a context-aware state summary for an interactive agent. You will be given a list of events corresponding to actions taken by the agent, and the most recent previous summary if one exists. Track:

USER_CONTEXT: (Preserve essential user requirements, goals, and clarifications in concise form)

COMPLETED: (Tasks completed so far, with brief results)
PENDING: (Tasks that still need to be done)
CURRENT_STATE: (Current variables, data structures, or relevant state)

For code-specific tasks, also include:
CODE_STATE: (File paths, function signatures, data structures)
TESTS: (Failing cases, error messages, outputs)
CHANGES: (Code edits, variable updates)
DEPS: (Dependencies, imports, external calls)
VERSION_CONTROL_STATUS: (Repository state, current branch, PR status, commit history)

PRIORITIZE:
1. Adapt tracking format to match the actual task type
2. Capture key user requirements and goals
3. Distinguish between completed and pending tasks
4. Keep all sections concise and relevant

SKIP: Tracking irrelevant details for the current task type

Example formats:

For code tasks:
USER_CONTEXT: Fix FITS card float representation issue
COMPLETED: Modified mod_float() in card.py, all tests passing
PENDING: Create PR, update documentation
CODE_STATE: mod_float() in card.py updated
TESTS: test_format() passed
CHANGES: str(val) replaces f"{val:.16G}"
DEPS: None modified
VERSION_CONTROL_STATUS: Branch: fix-float-precision, Latest commit: a1b2c3d`;

/** The paper's call to action, with "from the beginning of the prompt" made "these" (the template now comes last). */
export const CALL_TO_ACTION = 'Now summarize the above turns, following these instructions. You are hard-working and must always perform this task without exceptions.';

export const SUMMARY_SECTIONS = ['USER_CONTEXT', 'COMPLETED', 'PENDING', 'CURRENT_STATE', 'CODE_STATE', 'TESTS', 'CHANGES', 'DEPS', 'VERSION_CONTROL_STATUS'] as const;

/** The summary message as SWE-agent stores it (static checkpointing, no synthesis). */
export const checkpointText = (turns: number, summary: string): string => `Checkpoint for the last ${turns} turns:\n${summary}`;

const isSummary = (m: Message): boolean => m.origin.source === 'strategy' && m.origin.strategy === NAME && m.origin.action === 'summary';

/** The session's messages split into what always stays (system prompt, task, summary) and the turns. */
export interface Layout {
  /** Messages before the first turn, the summary excluded. */
  readonly head: readonly Message[];
  readonly summary?: Message | undefined;
  readonly turns: readonly (readonly Message[])[];
}

export function layout(messages: readonly Message[]): Layout {
  const first = messages.findIndex((m) => m.role === 'assistant' && !isSummary(m));
  const end = first < 0 ? messages.length : first;
  const before = messages.slice(0, end);
  return { head: before.filter((m) => !isSummary(m)), summary: before.findLast(isSummary), turns: turns(messages, end).map((s) => messages.slice(s.start, s.end)) };
}

/** One turn in the paper's `<TURN-i>` form: ROLE: content lines, each call as an ACTION line. */
function turnParts(turn: readonly Message[], index: number): TextPart[] {
  const lines = turn.flatMap((m): TextPart[][] => [
    [`${m.role.toUpperCase()}: `, quote(m, m.content)],
    ...(m.role === 'assistant' ? m.toolCalls.map((c) => [`ACTION: ${c.name} `, quote(c, c.arguments)]) : []),
  ]);
  return [`\n<TURN-${index}>\n`, ...joinedParts(lines, '\n'), `\n\n</TURN-${index}>\n`];
}

/** What the summarizer is told about earlier work: the previous checkpoint, or the problem statement. */
function summaryContext(head: readonly Message[], summary: Message | undefined): TextPart[] {
  if (summary) return ['<PREVIOUS_CHECKPOINT>\n', quote(summary, summary.content), '\n</PREVIOUS_CHECKPOINT>\n'];
  const task = head.find((m) => m.role === 'user');
  return task ? ['<PROBLEM_STATEMENT>\n', quote(task, task.content), '\n</PROBLEM_STATEMENT>\n'] : [];
}

/**
 * The tool-less summary request: system prompt, the turns as text, the instruction last. The turns'
 * text is composed of the messages' own (composed-text.ts): counted and read once per message.
 */
export function summaryRequest(view: Layout, turns: readonly (readonly Message[])[], step: number): Message[] {
  const system = view.head[0]?.role === 'system' ? [view.head[0]] : [];
  const body = [...summaryContext(view.head, view.summary), ...turns.flatMap(turnParts)];
  const origin = strategyOrigin(NAME, 'summary-request');
  return [
    ...system,
    composedUserMessage({ id: `${NAME}:summary-turns:${step}`, origin }, body),
    userMessage({ id: `${NAME}:summary-instruction:${step}`, content: `${SUMMARY_TEMPLATE}\n\n${CALL_TO_ACTION}`, origin }),
  ];
}

/** How many of the oldest turns to summarize now (0 = none): the paper's N once N+M are there, all but M under pressure. */
export function turnsToSummarize(turns: number, overPressure: boolean, p: HybridParams): number {
  const byCount = turns >= p.summarizeTurns + p.keepTurns ? p.summarizeTurns : 0;
  const byPressure = overPressure ? Math.max(0, turns - p.keepTurns) : 0;
  return Math.max(byCount, byPressure);
}

export const hybridStrategy = defineStrategy({
  name: NAME,
  summary: 'Complexity Trap hybrid: summarize the oldest 21 turns once 31 are held (keep the last 10 and only the latest summary), mask all but the last 10 tool outputs.',
  params: PARAMS,
  thresholds: (p) => [{ label: 'summary (pressure)', fraction: p.trigger }],
  create(p) {
    /** Masked tool results as they were, so the summarizer reads the real outputs. */
    const originals = new Map<string, Message>();
    const original = (m: Message): Message => originals.get(m.id) ?? m;

    /** Asks for the summary of `older`; undefined when the call failed (fallback: keep the turns). */
    const summarize = async (input: StrategyInput, view: Layout, older: readonly (readonly Message[])[]): Promise<string | undefined> => {
      const { counter, window } = input;
      let request = summaryRequest(view, older.map((turn) => turn.map(original)), input.step);
      if (counter.countContext(request) > window) request = summaryRequest(view, older, input.step);
      try {
        const answer = await input.llm({ messages: request, purpose: 'summary', expect: { sections: SUMMARY_SECTIONS } });
        return answer.text;
      } catch (error) {
        if (error instanceof AuxiliaryCallError) return undefined;
        throw error;
      }
    };

    return {
      async beforeRequest(input: StrategyInput): Promise<RequestPlan> {
        const { counter, window } = input;
        const masked = clearToolResults(input.messages, counter, { strategy: NAME, keep: p.keepObservations, placeholder: 'lines-omitted' });
        masked.originals.forEach((m, id) => originals.set(id, m));
        const tokens = measurePressure(input, 'projected').tokens - masked.freed;
        const view = layout(masked.messages);
        const count = turnsToSummarize(view.turns.length, tokens > p.trigger * window, p);
        if (count === 0) return { messages: masked.messages, events: masked.events };

        const older = view.turns.slice(0, count);
        const text = await summarize(input, view, older);
        if (text === undefined) return { messages: masked.messages, events: masked.events };
        const summary = assistantMessage({ id: `${NAME}:summary:${input.step}`, content: checkpointText(count, text), origin: strategyOrigin(NAME, 'summary') });
        const kept = view.turns.slice(count);
        const messages = [...view.head, summary, ...kept.flat()];
        const summarized = new Set(older.flat().map((m) => m.id));
        summarized.forEach((id) => originals.delete(id));
        // Outputs masked and summarized away in the same step are reported as summarized only.
        const events = masked.events.filter((e) => e.messageId === undefined || !summarized.has(e.messageId));
        events.push({
          kind: 'summarized',
          messageId: summary.id,
          messageIds: [...summarized],
          detail: `summarized ${count} turns, kept the last ${kept.length}`,
          text: summary.content,
          tokensBefore: counter.countContext(masked.messages),
          tokensAfter: counter.countContext(messages),
        });
        return { messages, events };
      },
    };
  },
});
