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
  readonly summary: string;
  /** Where the settings come from (paper, source file, docs). */
  readonly source: string;
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
      source: 'Lindenbauer et al., The Complexity Trap (arXiv 2508.21433), M=10; SWE-agent history_processors.py LastNObservations',
    }),
    definePreset(clearToolResultsStrategy, {
      name: 'anthropic-clear-tool-uses',
      params: { triggerTokens: 100_000, keep: 3, clearAtLeast: 0, excludeTools: '', clearToolInputs: false, placeholder: 'cleared' },
      summary: 'Above 100,000 input tokens, all but the last 3 tool results become "[cleared]" (clear_at_least: none).',
      source: 'Anthropic context editing, clear_tool_uses_20250919 defaults (docs.claude.com); LangChain ClearToolUsesEdit',
    }),
    definePreset(summarizationStrategy, {
      name: 'deepagents',
      params: { summarizationThreshold: 0.85, keepFraction: 0.1, offloadFirst: true, largeResultTokens: 20_000, compactionThreshold: 0.85 },
      summary: 'Tool results over 20,000 tokens offloaded with a preview; at 85% of the window an LLM summary keeping the most recent 10%.',
      source: 'shared/design/anchors.md, "Strategies in the field", deepagents row (summary at 85% keeping 10%; results > 20,000 tokens to files)',
    }),
    definePreset(summarizationStrategy, {
      name: 'codex',
      params: { summarizationThreshold: 0.9, keep: 'user-messages', keepUserTokens: 20_000, template: 'handoff', offloadFirst: false, recoveryPrompt: false },
      summary: "At 90% of the window: a handoff summary plus the user's own messages verbatim (up to 20,000 tokens); tool items dropped.",
      source: 'shared/design/anchors.md, "Strategies in the field", OpenAI Codex CLI row (compact at 90%; handoff summary + user messages up to 20,000 tokens)',
    }),
    definePreset(summarizationStrategy, {
      name: 'goose',
      params: { summarizationThreshold: 0.8, template: 'goose', offloadFirst: false, recoveryPrompt: false },
      summary: 'At 80% of the window: a summary with Goal / Constraints / Progress / Key Decisions / Next Steps / Critical Context.',
      source: 'shared/design/anchors.md, "Strategies in the field", Goose row (GOOSE_AUTO_COMPACT_THRESHOLD 0.8 and its summary sections)',
    }),
  ].map((p) => [p.name, p]),
);
