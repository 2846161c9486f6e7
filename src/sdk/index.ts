/**
 * `import ... from 'ctxbench'`: the public API, for people who write a strategy of their own, test it
 * against ctxbench's rules, or run one in an agent. It is the contract the built-in strategies use
 * (README "Write your own strategy"): what is exported here is what a built-in sees, nothing more,
 * and `compact` over OpenAI chat messages (README "Use a strategy in your agent"; the AI SDK's and
 * LangChain's adapters are the entries `ctxbench/ai-sdk` and `ctxbench/langchain`).
 */

// The strategy contract.
export {
  AuxiliaryCallError,
  defineStrategy,
  resolveStrategyParams,
  type AuxiliaryLlm,
  type AuxiliaryRequest,
  type AuxiliaryResponse,
  type LastRequest,
  type RequestPlan,
  type ResponseInput,
  type ResponsePlan,
  type StrategyDefinition,
  type StrategyEvent,
  type StrategyInput,
  type StrategyParams,
  type StrategyRun,
  type StrategySpec,
} from '../core/strategy.js';
export {
  checkBelow,
  defaultParams,
  type BooleanSpec,
  type ChoiceSpec,
  type FractionSpec,
  type IntegerSpec,
  type Params,
  type ParamsOf,
  type ParamSpec,
  type ParamSpecs,
  type ParamValue,
  type TextSpec,
} from '../core/params.js';
export type { EventKind, Threshold } from '../core/run-records.js';

// Messages: immutable; a strategy drops, replaces (same id) or inserts them.
export {
  assistantMessage,
  droppedIds,
  hasToolCalls,
  isFromScenario,
  strategyOrigin,
  systemMessage,
  toolMessage,
  userMessage,
  withContent,
  type AssistantMessage,
  type Message,
  type Origin,
  type Role,
  type SystemMessage,
  type ToolCall,
  type ToolMessage,
  type UserMessage,
} from '../core/messages.js';

// Where a context may be cut, and the rule every context sent must keep.
export {
  cycles,
  headEnd,
  recentStart,
  rounds,
  seenToolRounds,
  tailStart,
  turns,
  unseenFrom,
  withoutPendingCalls,
  type Cycle,
  type Span,
  type TailLimits,
} from '../core/cut-points.js';
export { checkPairing, describeViolations, type PairingOptions, type Violation, type ViolationKind } from '../core/pairing.js';

// Token counts and the offload store a strategy is handed.
export { createTokenCounter, ENCODINGS, type Encoding, type TokenCounter } from '../core/tokens.js';
export { createOffloadStore, type OffloadStore } from '../core/offload-store.js';

// The built-in strategies and presets, to compare with or build on.
export { getStrategy, PRESET_NAMES, STRATEGIES, STRATEGY_NAMES } from '../strategies/index.js';
export { definePreset, PRESETS, type Preset } from '../strategies/presets.js';

// A strategy inside an agent: over OpenAI chat messages (the frameworks' adapters have entries of their own).
export { compact, createCompactor, type CompactOptions, type CompactResult, type Compactor } from '../adapters/openai.js';
export { CompactionStopped, type CompactionSettings, type CompactionStep } from '../adapters/compaction-run.js';
export type { EventRecord } from '../core/run-records.js';
export type { ToolDeclaration, ToolDefinition } from '../core/tools.js';

// What every error the library throws is: one line, and a code to tell them apart by.
export { CtxbenchError, type ErrorCode } from '../core/errors.js';
export type { StrategyChoice, StrategyOptions } from '../adapters/strategy-choice.js';
