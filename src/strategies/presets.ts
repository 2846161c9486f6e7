/**
 * Presets: a strategy with the parameters a system in the field runs (shared/design/anchors.md), so a
 * user can reproduce what they run in production. `--preset NAME` selects one; `--param` still
 * overrides its values. A preset's settings are type-checked against its strategy's parameters.
 */
import type { Params } from '../core/params.js';
import type { StrategyDefinition } from '../core/strategy.js';
import { clearToolResultsStrategy } from './clear-tool-results.js';
import { summarizationStrategy } from './summarization.js';

export interface Preset {
  readonly name: string;
  /** The strategy it configures. */
  readonly strategy: StrategyDefinition;
  /** The values it sets; the strategy's defaults fill in the rest. */
  readonly params: Params;
  /** What it does, as the system it reproduces does it. */
  readonly summary: string;
  /** Where the settings and the behaviour come from (paper, source file, docs). */
  readonly source: string;
  /** What the system does that the preset does not (printed by `bench strategies` and in the README). */
  readonly notReproduced: string;
}

/** A preset of `strategy`: `params` may set only parameters `strategy` has, to values they admit. */
export function definePreset<P extends Params>(strategy: StrategyDefinition<P>, fields: Omit<Preset, 'strategy' | 'params'> & { readonly params: Partial<P> }): Preset {
  // Partial only in its type: a preset sets some values, and sets each one it names.
  return Object.freeze({ ...fields, params: fields.params as Params, strategy });
}

/** One entry per preset, keyed by its name. */
export const PRESETS: Readonly<Record<string, Preset>> = Object.fromEntries(
  [
    definePreset(clearToolResultsStrategy, {
      name: 'jetbrains-masking',
      params: { triggerTokens: 0, keep: 10, clearAtLeast: 0, excludeTools: '', clearToolInputs: false, placeholder: 'lines-omitted' },
      summary: 'Observation masking on every request: all but the last 10 tool outputs become "Old environment output: (K lines omitted)".',
      source: 'Lindenbauer et al., The Complexity Trap (arXiv 2508.21433), M=10; SWE-agent sweagent/agent/history_processors.py LastNObservations',
      notReproduced: 'nothing known.',
    }),
    definePreset(clearToolResultsStrategy, {
      name: 'anthropic-clear-tool-uses',
      params: { triggerTokens: 100_000, keep: 3, clearAtLeast: 0, excludeTools: '', clearToolInputs: false, placeholder: 'cleared' },
      summary:
        'Applied to every request from the full, unedited history, as the API does server-side: once it exceeds 100,000 input tokens, all but the last 3 tool results become "[cleared]" (clear_at_least: none; exclude_tools: none).',
      source: 'Anthropic context editing, clear_tool_uses_20250919 (docs.claude.com/en/docs/build-with-claude/context-editing: trigger, keep, clear_at_least, exclude_tools, clear_tool_inputs); LangChain ClearToolUsesEdit',
      notReproduced: "tokens are counted by the run's tokenizer, not Claude's; a trigger in tool uses, and clear_tool_inputs as a list of tools, are not offered.",
    }),
    definePreset(summarizationStrategy, {
      name: 'deepagents',
      params: {
        offloadFirst: true,
        offloadStyle: 'deepagents',
        largeResultTokens: 20_000,
        previewLines: 5,
        recoveryPrompt: false,
        summarizationThreshold: 0.85,
        keepFraction: 0.1,
        template: 'deepagents',
      },
      summary:
        'A tool result over 20,000 tokens (4 characters a token) goes to /large_tool_results/<call id>, leaving a numbered 5-line head and tail; ls, glob, grep, read_file, edit_file and write_file results never do. At 85% of the window, the messages before the most recent 10% are appended to /conversation_history/ and replaced by a summary of their last 4,000 tokens, in a user message naming that file.',
      source:
        'langchain-ai/deepagents libs/deepagents/deepagents/middleware/filesystem.py (tool_token_limit_before_evict, TOOLS_EXCLUDED_FROM_EVICTION), _message_eviction.py (head-and-tail preview), summarization.py and graph.py (trigger 0.85, keep 0.10 with a model profile); LangChain SummarizationMiddleware',
      notReproduced:
        'the old write_file and edit_file arguments deepagents cuts to 2,000 characters at 85%; LangChain starting the summarized messages on a user message; its prompts, in our words.',
    }),
    definePreset(summarizationStrategy, {
      name: 'codex',
      params: { summarizationThreshold: 0.9, keep: 'user-messages', keepUserTokens: 20_000, template: 'codex', offloadFirst: false, recoveryPrompt: false },
      summary:
        "At 90% of the window, the whole conversation plus the compact prompt asks for a handoff summary (the oldest items left out while the request does not fit); the new history is the user's own messages (up to 20,000 tokens, most recent first) and then the summary as a user message after Codex's prefix; tool items are dropped.",
      source: 'openai/codex codex-rs/core/src/compact.rs (build_compacted_history, COMPACT_USER_MESSAGE_MAX_TOKENS, the retry that removes the oldest item), templates/compact/prompt.md and summary_prefix.md',
      notReproduced:
        'a user message that no longer fits the 20,000 tokens is left out, where Codex keeps it cut in the middle; the compact prompt and the summary prefix are in our words.',
    }),
    definePreset(summarizationStrategy, {
      name: 'goose',
      params: { summarizationThreshold: 0.8, keep: 'last-user-message', template: 'goose', offloadFirst: false, recoveryPrompt: false },
      summary:
        'Above 80% of the window, the whole conversation as text is summarized into Goal / Constraints & Preferences / Progress / Key Decisions / Next Steps / Critical Context (10, 20, 50, then 100% of the tool responses left out, middle-out, while the request does not fit); the model then sees the summary, a note that the context was compacted and the latest user message, re-sent.',
      source: 'block/goose crates/goose/src/context_mgmt/mod.rs (compact_messages, do_compact, DEFAULT_COMPACTION_THRESHOLD 0.8) and crates/goose/src/prompts/compaction.md',
      notReproduced:
        "the trigger is measured on the next request's tokens (Goose reads the last request's total); the prompt and the continuation note are in our words; Goose's summaries of single tool calls are off in its source, and not reproduced.",
    }),
  ].map((p) => [p.name, p]),
);
