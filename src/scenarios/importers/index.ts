import { anthropicMessages } from './anthropic-messages.js';
import { miniSweAgent } from './mini-swe-agent.js';
import { openaiChat } from './openai-chat.js';
import { openhandsEvents } from './openhands-events.js';
import { openhandsLitellm } from './openhands-litellm.js';
import { sweAgentTraj } from './swe-agent-traj.js';
import { tauBench } from './tau-bench.js';
import type { Importer } from './types.js';

/**
 * Every known trajectory format, tried in this order when a file is not a ctxbench scenario: formats
 * with a shape of their own first (no two of them accept the same file), then the generic chat formats,
 * which would also accept some of those files (a mini-swe-agent or litellm log is an OpenAI chat too).
 */
export const IMPORTERS: readonly Importer[] = [
  miniSweAgent,
  openhandsLitellm,
  sweAgentTraj,
  openhandsEvents,
  tauBench,
  anthropicMessages,
  openaiChat,
];

export function findImporter(data: unknown, file: string): Importer | undefined {
  return IMPORTERS.find((importer) => importer.detect(data, file));
}
