import { miniSweAgent } from './mini-swe-agent.js';
import { openhandsLitellm } from './openhands-litellm.js';
import type { Importer } from './types.js';

/** Every known trajectory format, tried in this order when a file is not a ctxbench scenario. */
export const IMPORTERS: readonly Importer[] = [miniSweAgent, openhandsLitellm];

export function findImporter(data: unknown, file: string): Importer | undefined {
  return IMPORTERS.find((importer) => importer.detect(data, file));
}
