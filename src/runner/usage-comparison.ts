import type { StepRecord, UsageComparison } from '../core/run-records.js';

/**
 * Compares the prompt tokens a replay counted with the provider usage the scenario recorded, over the
 * steps that sent exactly the recorded history (so both count the same context). Undefined when the
 * scenario recorded no usage for those steps.
 */
export function compareUsage(steps: readonly StepRecord[]): UsageComparison | undefined {
  const errors = steps
    .filter((s) => s.recordedPromptTokens !== undefined && s.recordedPromptTokens > 0)
    .map((s) => (s.promptTokens - s.recordedPromptTokens!) / s.recordedPromptTokens!);
  if (errors.length === 0) return undefined;
  const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
  return {
    meanAbsPctError: mean(errors.map(Math.abs)) * 100,
    meanPctError: mean(errors) * 100,
    comparedSteps: errors.length,
  };
}
