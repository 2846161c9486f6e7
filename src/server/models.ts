/**
 * The models the server serves. Ollama names carry a tag and "name" means "name:latest", so either
 * spelling finds the model (both routes: Ollama's /v1 accepts the same names).
 */
import type { ModelSpec } from './types.js';

export const DEFAULT_MODELS: readonly ModelSpec[] = [{ name: 'mock-model', contextLength: 32768 }];

/** The name with its tag: "qwen2.5-coder" -> "qwen2.5-coder:latest"; tagged names unchanged. */
export const withTag = (name: string): string => (name.includes(':') ? name : `${name}:latest`);

export function findModel(models: readonly ModelSpec[], name: string): ModelSpec | undefined {
  return models.find((m) => withTag(m.name) === withTag(name));
}

export function checkModels(models: readonly ModelSpec[]): void {
  if (models.length === 0) throw new Error('the server needs at least one model');
  for (const m of models) {
    if (m.name.trim() === '') throw new Error('a model needs a name');
    if (!Number.isInteger(m.contextLength) || m.contextLength < 1) throw new Error(`model ${m.name}: context length must be a whole number >= 1`);
  }
}
