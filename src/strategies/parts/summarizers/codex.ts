/**
 * OpenAI Codex CLI's compaction (openai/codex, codex-rs/core/src/compact.rs and templates/compact/):
 * the conversation as it is, tool items included, then the compact prompt asking for a handoff
 * summary; when the request exceeds the window, the oldest item is left out and the request sent
 * again, until it fits or nothing is left (then Codex gives up and the context stays as it is). The
 * new history is the system prompt, the user's own messages (`keep=user-messages`: most recent
 * first, up to 20,000 tokens), then the summary as a USER message, after its prefix.
 *
 * The prompt and the prefix are Codex's, in our words.
 */
import { rounds } from '../../../core/cut-points.js';
import { AuxiliaryCallError } from '../../../core/strategy.js';
import { requestMessage, summaryMessage, type Summarizer } from '../summarizer.js';

/** Codex's compact prompt (templates/compact/prompt.md): a handoff summary for the model that takes over. */
export const CODEX_SUMMARY_PROMPT = `You are compacting the conversation into a checkpoint: write a handoff summary for another model that will take over the task.

## Goal
The user's objective.

## Progress
What is done, and the decisions made on the way.

## Constraints
Context, requirements and user preferences that still apply.

## Next Steps
What remains to be done.

## References
Data, examples, paths and names needed to continue.

Be concise and structured: the next model should continue without redoing work.`;

/** Codex's summary prefix (templates/compact/summary_prefix.md), put before the summary. */
export const CODEX_SUMMARY_PREFIX =
  'Another model began this task and wrote the summary below of its work so far; the tools it used are still as it left them. Build on its work instead of repeating it. Its summary:';

const SECTIONS = ['Goal', 'Progress', 'Constraints', 'Next Steps', 'References'];

export const codexSummarizer: Summarizer = {
  sections: SECTIONS,

  async summarize(call) {
    const instruction = requestMessage(call, 'summary-prompt', CODEX_SUMMARY_PROMPT);
    let history = call.context.slice(call.prefix.length);
    for (let dropped = 0; ; dropped++) {
      try {
        const answer = await call.input.llm({ messages: [...call.prefix, ...history, instruction], purpose: 'summary', expect: { sections: SECTIONS } });
        return { text: answer.text, how: dropped > 0 ? `LLM summary, the ${dropped} oldest items left out of its request to fit` : 'LLM summary' };
      } catch (error) {
        if (!(error instanceof AuxiliaryCallError)) throw error;
        // Codex drops the oldest history item (a call goes with its results here) and tries again.
        const oldest = rounds(history)[0];
        if (error.reason !== 'overflow' || !oldest) return { text: undefined, how: `the summary request failed (${error.reason}), with ${dropped} oldest items left out` };
        history = history.slice(oldest.end);
      }
    }
  },

  compose(call, summary, kept) {
    return [...call.prefix, ...kept, summaryMessage(call, 'user', `${CODEX_SUMMARY_PREFIX}\n${summary}`)];
  },
};
