/**
 * End-to-end replays in strategy tests: a scenario through a strategy on the mock backend, keeping every
 * request the runner sent (agent turns and auxiliary calls alike) for the test to inspect.
 */
import { createMockBackend, type MockOptions } from '../../src/llm/mock.js';
import type { ChatRequest } from '../../src/core/backend.js';
import { replayScenario } from '../../src/runner/replay.js';
import type { ReplayOptions } from '../../src/runner/run-config.js';
import type { RunResult } from '../../src/core/run-records.js';

export type RecordedReplayOptions = Omit<ReplayOptions, 'sourceFormat' | 'backend'> & {
  /** How the mock answers (failures, tool calls for given purposes). */
  readonly mock?: MockOptions;
};

/** Replays `options.scenario` as a ctxbench scenario on the mock backend; `requests` in the order sent. */
export async function recordedReplay(options: RecordedReplayOptions): Promise<{ run: RunResult; requests: ChatRequest[] }> {
  const { mock: mockOptions, ...replay } = options;
  const mock = createMockBackend(options.counter, mockOptions);
  const requests: ChatRequest[] = [];
  const run = await replayScenario({
    ...replay,
    sourceFormat: 'ctxbench',
    // The runner appends to its history array after a request: keep the messages as they were sent.
    backend: { name: 'mock', complete: (request) => (requests.push({ ...request, messages: [...request.messages] }), mock.complete(request)) },
  });
  return { run, requests };
}
