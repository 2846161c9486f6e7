/**
 * Presets: a strategy with the parameters a system in the field runs (shared/design/anchors.md), so a
 * user can reproduce what they run in production. `--preset NAME` selects one; `--param` still
 * overrides its values.
 */
import type { ParamValue } from '../core/params.js';

export interface Preset {
  readonly name: string;
  /** The strategy it configures. */
  readonly strategy: string;
  readonly params: Readonly<Record<string, ParamValue>>;
  readonly summary: string;
  /** Where the settings come from (paper, source file, docs). */
  readonly source: string;
}

/** One entry per preset; the registry test checks every one against its strategy's parameters. */
export const PRESETS: Readonly<Record<string, Preset>> = {
  'jetbrains-masking': {
    name: 'jetbrains-masking',
    strategy: 'clear-tool-results',
    params: { triggerTokens: 0, keep: 10, clearAtLeast: 0, excludeTools: '', clearToolInputs: false, placeholder: 'lines-omitted' },
    summary: 'Observation masking on every request: all but the last 10 tool outputs become "Old environment output: (K lines omitted)".',
    source: 'Lindenbauer et al., The Complexity Trap (arXiv 2508.21433), M=10; SWE-agent history_processors.py LastNObservations',
  },
  'anthropic-clear-tool-uses': {
    name: 'anthropic-clear-tool-uses',
    strategy: 'clear-tool-results',
    params: { triggerTokens: 100_000, keep: 3, clearAtLeast: 0, excludeTools: '', clearToolInputs: false, placeholder: 'cleared' },
    summary: 'Above 100,000 input tokens, all but the last 3 tool results become "[cleared]" (clear_at_least: none).',
    source: 'Anthropic context editing, clear_tool_uses_20250919 defaults (docs.claude.com); LangChain ClearToolUsesEdit',
  },
  deepagents: {
    name: 'deepagents',
    strategy: 'summarization',
    params: { summarizationThreshold: 0.85, keepFraction: 0.1, offloadFirst: true, largeResultTokens: 20_000, compactionThreshold: 0.85 },
    summary: 'Tool results over 20,000 tokens offloaded with a preview; at 85% of the window an LLM summary keeping the most recent 10%.',
    source: 'shared/design/anchors.md, "Strategies in the field", deepagents row (summary at 85% keeping 10%; results > 20,000 tokens to files)',
  },
  codex: {
    name: 'codex',
    strategy: 'summarization',
    params: { summarizationThreshold: 0.9, keep: 'user-messages', keepUserTokens: 20_000, template: 'handoff', offloadFirst: false, recoveryPrompt: false },
    summary: 'At 90% of the window: a handoff summary plus the user\'s own messages verbatim (up to 20,000 tokens); tool items dropped.',
    source: 'shared/design/anchors.md, "Strategies in the field", OpenAI Codex CLI row (compact at 90%; handoff summary + user messages up to 20,000 tokens)',
  },
  goose: {
    name: 'goose',
    strategy: 'summarization',
    params: { summarizationThreshold: 0.8, template: 'goose', offloadFirst: false, recoveryPrompt: false },
    summary: 'At 80% of the window: a summary with Goal / Constraints / Progress / Key Decisions / Next Steps / Critical Context.',
    source: 'shared/design/anchors.md, "Strategies in the field", Goose row (GOOSE_AUTO_COMPACT_THRESHOLD 0.8 and its summary sections)',
  },
};
