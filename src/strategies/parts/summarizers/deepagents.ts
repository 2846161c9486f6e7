/**
 * deepagents' summarization (langchain-ai/deepagents, libs/deepagents/deepagents/middleware/
 * summarization.py, over LangChain's SummarizationMiddleware): the messages it replaces are appended,
 * as LangChain's buffer text (`Human: ...`, `AI: ...`), to one history file of the thread under
 * /conversation_history/; the summarizer reads only their most recent 4,000 tokens
 * (`trim_tokens_to_summarize`) with LangChain's context-extraction prompt; the summary goes in a user
 * message that names the history file, first after the system prompt, before the kept messages. When
 * the summary request fails, LangChain's summary is its error text.
 *
 * Differences, on purpose: the prompt and the summary message are theirs in our words; the messages
 * to summarize go in a user message before the prompt, after the agent's system prompt (LangChain
 * sends the prompt alone, the messages inside it); the 4,000 tokens are counted by the run's counter,
 * in whole rounds, and are not made to start on a user message (LangChain's `start_on="human"`, which
 * on an agent that only calls tools can leave nothing to summarize).
 */
import { joinedParts, quote, type TextPart } from '../../../core/composed-text.js';
import { tailStart } from '../../../core/cut-points.js';
import type { Message } from '../../../core/messages.js';
import { AuxiliaryCallError } from '../../../core/strategy.js';
import { isSummaryArtifact, requestMessage, summaryMessage, type Summarizer } from '../summarizer.js';

/** LangChain's DEFAULT_SUMMARY_PROMPT, in our words. */
export const DEEPAGENTS_SUMMARY_PROMPT = `You are extracting context. You are close to the most input tokens you can take, so the conversation history above will be replaced by what you extract now: keep only what matters most for the overall goal, and make sure no action already done has to be repeated.

Read the whole history carefully and reply with the extracted context only, with no text before or after it.`;

/** LangChain's `_DEFAULT_TRIM_TOKEN_LIMIT`: the most tokens of the replaced messages the summarizer reads. */
const TRIM_TOKENS = 4000;

/** The thread's history file (deepagents: `{history_path_prefix}/{thread_id}.md`). */
export const DEEPAGENTS_HISTORY_FILE = '/conversation_history/thread.md';

const SECTIONS = ['Extracted Context'];

const ROLES = { system: 'System', user: 'Human', assistant: 'AI', tool: 'Tool' } as const;

/** LangChain `get_buffer_string`: `Role: content` per message, a call as `name(arguments)`. */
export function bufferParts(messages: readonly Message[]): TextPart[] {
  const lines = messages.map((m): TextPart[] => {
    const calls = m.role === 'assistant' ? m.toolCalls.map((c): TextPart[] => [`${c.name}(`, quote(c, c.arguments), ')']) : [];
    return [`${ROLES[m.role]}: `, ...joinedParts([...(m.content === '' ? [] : [[quote(m, m.content)]]), ...calls], '\n')];
  });
  return joinedParts(lines, '\n');
}

/** deepagents' summary message: where the full history is, then the summary in <summary> tags. */
export function deepagentsSummaryText(historyFile: string, summary: string): string {
  return `This conversation was summarized to save space: you are in the middle of it.\n\nIts full history is saved at ${historyFile}; read it there when you need a detail.\n\nThe summary:\n\n<summary>\n${summary}\n</summary>`;
}

export const deepagentsSummarizer: Summarizer = {
  sections: SECTIONS,

  archive({ input, span }) {
    // Appended, one section per summary; an earlier summary is not stored again.
    const parts = [`## Summarized at step ${input.step}\n\n`, ...bufferParts(span.filter((m) => !isSummaryArtifact(m))), '\n\n'];
    return [input.files.append(DEEPAGENTS_HISTORY_FILE, parts)];
  },

  async summarize(call) {
    const { input, span } = call;
    const trimmed = span.slice(tailStart(span, input.counter, { budget: TRIM_TOKENS }));
    const messages = [...call.prefix, requestMessage(call, 'summary-input', bufferParts(trimmed)), requestMessage(call, 'summary-prompt', DEEPAGENTS_SUMMARY_PROMPT)];
    const read = trimmed.length < span.length ? ` of the last ${trimmed.length} of ${span.length} messages (${TRIM_TOKENS.toLocaleString('en-US')} tokens)` : '';
    try {
      const answer = await input.llm({ messages, purpose: 'summary', expect: { sections: SECTIONS } });
      return { text: answer.text, how: `LLM summary${read}` };
    } catch (error) {
      if (!(error instanceof AuxiliaryCallError)) throw error;
      return { text: `Error generating summary: ${error.message}`, how: `LangChain's error text as the summary (the summary request failed: ${error.reason})` };
    }
  },

  compose(call, summary, kept, archived) {
    return [...call.prefix, summaryMessage(call, 'user', deepagentsSummaryText(archived[0] ?? DEEPAGENTS_HISTORY_FILE, summary)), ...kept];
  },
};
