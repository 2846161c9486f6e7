/**
 * Goose's auto-compaction (block/goose, crates/goose/src/context_mgmt/mod.rs `compact_messages`,
 * `do_compact`, prompts/compaction.md): the whole conversation, rendered as text (`[role]: ...`,
 * `tool_request(name): ...`, `tool_response: ...`), is summarized into a checkpoint with Goose's
 * sections; when the request exceeds the window, 10, 20, 50, then 100% of the tool responses are left
 * out of it, middle-out, before Goose gives up (the context then stays as it is). Every message is
 * then hidden from the model, which sees the summary (a user message), an assistant message saying the
 * context was compacted, and the most recent user message with text only, re-sent (`keep=last-user-message`).
 *
 * Differences, on purpose: the prompt and the continuation messages are Goose's in our words; the
 * rendered conversation goes in a user message before the prompt, after the agent's system prompt
 * (Goose puts it inside a system prompt of its own), so every request starts with the system prompt.
 */
import { joinedParts, quote, type TextPart } from '../../../core/composed-text.js';
import { assistantMessage, strategyOrigin, type Message } from '../../../core/messages.js';
import { AuxiliaryCallError } from '../../../core/strategy.js';
import { middleOutSelection } from '../middle-out.js';
import { requestMessage, summaryMessage, type Summarizer } from '../summarizer.js';

/** Goose's compaction prompt (prompts/compaction.md), in our words, with its sections. */
export const GOOSE_SUMMARY_PROMPT = `Summarize the conversation above into a structured checkpoint that another model will use to continue the work. Use exactly these sections:

## Goal
What the user wants done (several items if the session covers several tasks).

## Constraints & Preferences
Requirements and preferences the user stated, or "(none)".

## Progress
What is done (with file paths), what is in progress, what is blocked.

## Key Decisions
Each decision and its reason.

## Next Steps
What should happen next, in order.

## Critical Context
Data, error messages and references needed to continue, or "(none)".

Keep each section short but complete; keep file paths, function names and error messages exact; include code only when it is needed to continue; leave out what can be re-read from files.`;

/** Goose's continuation messages, in our words: after a tool loop, and when a user message was the last. */
export const GOOSE_CONTINUATION = {
  toolLoop:
    'The context was compacted: the message before this one summarizes the conversation so far. Do not mention the summary or that the conversation was summarized; keep calling tools as needed to finish the task.',
  conversation:
    'The context was compacted: the message before this one summarizes the conversation so far. Do not mention the summary or that the conversation was summarized; carry on with the conversation from where it is.',
} as const;

/** Goose's share of tool responses left out of the summary request, tried in turn. */
const REMOVAL_LEVELS = [0, 10, 20, 50, 100] as const;

const SECTIONS = ['Goal', 'Constraints & Preferences', 'Progress', 'Key Decisions', 'Next Steps', 'Critical Context'];

/** Goose `format_message_for_compacting`, one line per message (a tool response is a user message in Goose). */
export function gooseParts(messages: readonly Message[]): TextPart[] {
  const lines = messages.map((m): TextPart[] => {
    const items: TextPart[][] =
      m.role === 'tool'
        ? [['tool_response: ', quote(m, m.content)]]
        : [...(m.content === '' ? [] : [[quote(m, m.content)]]), ...(m.role === 'assistant' ? m.toolCalls.map((c) => [`tool_request(${c.name}): `, quote(c, c.arguments)]) : [])];
    return [`[${m.role === 'assistant' ? 'assistant' : 'user'}]: `, ...(items.length === 0 ? ['<empty message>'] : joinedParts(items, '\n'))];
  });
  return joinedParts(lines, '\n');
}

/** `messages` without the tool responses Goose leaves out at `level` percent, middle-out. */
function withoutToolResponses(messages: readonly Message[], level: number): Message[] {
  const tools = messages.flatMap((m, i) => (m.role === 'tool' ? [i] : []));
  const left = new Set(middleOutSelection(tools.length, level).map((k) => tools[k]!));
  return messages.filter((_, i) => !left.has(i));
}

export const gooseSummarizer: Summarizer = {
  sections: SECTIONS,

  async summarize(call) {
    for (const level of REMOVAL_LEVELS) {
      const conversation = gooseParts(withoutToolResponses(call.span, level));
      const messages = [...call.prefix, requestMessage(call, 'summary-input', conversation), requestMessage(call, 'summary-prompt', GOOSE_SUMMARY_PROMPT)];
      try {
        const answer = await call.input.llm({ messages, purpose: 'summary', expect: { sections: SECTIONS } });
        return { text: answer.text, how: level > 0 ? `LLM summary, ${level}% of the tool responses left out of its request to fit` : 'LLM summary' };
      } catch (error) {
        if (!(error instanceof AuxiliaryCallError)) throw error;
        if (error.reason !== 'overflow') return { text: undefined, how: `the summary request failed (${error.reason})` };
      }
    }
    return { text: undefined, how: 'the summary request exceeded the window even with every tool response left out' };
  },

  compose(call, summary, kept) {
    const userLast = kept.length > 0 && kept.at(-1) === call.context.at(-1);
    const continuation = assistantMessage({
      id: `${call.strategy}:summary-continuation:${call.input.step}`,
      content: userLast ? GOOSE_CONTINUATION.conversation : GOOSE_CONTINUATION.toolLoop,
      origin: strategyOrigin(call.strategy, 'summary-continuation'),
    });
    return [...call.prefix, summaryMessage(call, 'user', summary), continuation, ...kept];
  },
};
