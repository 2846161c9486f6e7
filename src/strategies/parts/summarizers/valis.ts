/**
 * Seed 002's summary (Valis `_generate_summary`): the span as the seed's markdown, then its prompt;
 * the answer in the seed's wrapper, a system message right after the system prompt and before the
 * kept messages; the whole conversation saved first as JSON and markdown under /conversation_history/;
 * the seed's heuristic summary when the request fails.
 */
import type { Message } from '../../../core/messages.js';
import { AuxiliaryCallError } from '../../../core/strategy.js';
import { archiveConversation, conversationMarkdownParts } from '../conversation-archive.js';
import { argumentsObject } from '../message-edits.js';
import { requestMessage, summaryMessage, type Summarizer } from '../summarizer.js';

/** Seed 002's summary prompt (_generate_summary), word for word. */
export const VALIS_SUMMARY_PROMPT = `Summarize this conversation into a structured format:

## Session Intent
What is the user trying to accomplish?

## Progress So Far
What has been completed? What artifacts were created?

## Key Decisions
What important decisions were made?

## Current State
Where did we leave off?

## Next Steps
What remains to be done?

## Important Details
Any specific values, paths, or configurations that must be remembered.

Be concise but preserve critical information needed to continue the task.`;

/** Seed 002's wrapper around the summary, inserted as a system message after the system prompt. */
export function summaryMessageText(summary: string): string {
  return (
    '\n[CONVERSATION SUMMARY]\n' +
    'The following is a summary of the conversation so far. The full conversation \n' +
    'has been saved to /conversation_history/ and can be searched with grep().\n\n' +
    `${summary}\n\n[END SUMMARY]\n`
  );
}

/** Seed 002's _extract_summary_heuristic: the first user request, tools used, paths touched. */
export function heuristicSummary(messages: readonly Message[]): string {
  const intent = messages.find((m) => m.role === 'user')?.content.slice(0, 500) ?? 'Unknown';
  const tools = new Set<string>();
  const files = new Set<string>();
  for (const m of messages) {
    if (m.role !== 'assistant') continue;
    for (const call of m.toolCalls) {
      tools.add(call.name);
      const path = argumentsObject(call)['path'];
      if (path !== undefined) files.add(String(path));
    }
  }
  return `## Session Intent
${intent}

## Tools Used
${tools.size > 0 ? [...tools].join(', ') : 'None'}

## Files Created/Modified
${files.size > 0 ? [...files].join('\n') : 'None'}

## Note
This is an automatic summary. Full conversation saved to /conversation_history/
`;
}

const SECTIONS = ['Session Intent', 'Progress So Far', 'Key Decisions', 'Current State', 'Next Steps', 'Important Details'];

export const valisSummarizer: Summarizer = {
  sections: SECTIONS,

  archive({ input, context }) {
    const saved = archiveConversation(input.files, `conversation_step${input.step}`, context);
    return [saved.json, saved.markdown];
  },

  async summarize(call) {
    // Tool-less and pairing-free: the span goes as text (the seed's markdown), then the instruction.
    const messages = [...call.prefix, requestMessage(call, 'summary-input', conversationMarkdownParts(call.span)), requestMessage(call, 'summary-prompt', VALIS_SUMMARY_PROMPT)];
    try {
      const answer = await call.input.llm({ messages, purpose: 'summary', expect: { sections: SECTIONS } });
      return { text: answer.text, how: 'LLM summary' };
    } catch (error) {
      if (!(error instanceof AuxiliaryCallError)) throw error;
      return { text: heuristicSummary(call.context), how: `heuristic summary (the summary request failed: ${error.reason})` };
    }
  },

  compose(call, summary, kept) {
    return [...call.prefix, summaryMessage(call, 'system', summaryMessageText(summary)), ...kept];
  },
};
