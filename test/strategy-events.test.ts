/**
 * What the report's timeline relies on: every strategy says which messages an action touched and
 * keeps the text it wrote, on a generated long task that drives each one to act.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createTokenCounter, type TokenCounter } from '../src/core/tokens.js';
import type { EventKind, RunResult } from '../src/core/run-records.js';
import { STRATEGIES } from '../src/strategies/index.js';
import { defaultParams } from '../src/core/params.js';
import { scenarioOf, sweScenarioMessages } from './helpers/history.js';
import { recordedReplay } from './helpers/replay.js';

let counter: TokenCounter;
beforeAll(async () => {
  counter = await createTokenCounter('o200k_base');
});

/** 40 tool rounds of 2,000-character outputs; long thoughts (which masking cannot shrink) on request. */
async function replay(name: string, window = 8192, thoughtChars = 0): Promise<RunResult> {
  const strategy = STRATEGIES[name]!;
  const scenario = scenarioOf(sweScenarioMessages(40, 2000, thoughtChars));
  const { run } = await recordedReplay({ scenario, strategy, params: defaultParams(strategy.params), counter, model: 'gpt-4o', window, batchId: 'b' });
  return run;
}

const ofKind = (run: RunResult, kind: EventKind) => run.events.filter((e) => e.kind === kind);
const scenarioIds = new Set(scenarioOf(sweScenarioMessages(40, 2000)).messages.map((m) => m.id));

describe('events carry the messages they touched and the text a strategy wrote', () => {
  it.each([
    ['summarization', 'summarized'],
    ['hybrid', 'summarized'],
    ['checkpoint-restart', 'checkpoint'],
    ['continuation', 'continuation'],
  ] as const)('%s: every %s event keeps its text', async (name, kind) => {
    // Below 18k the checkpoint request, or its answer, would not fit: the strategy's fallback, without a checkpoint.
    const events = ofKind(await replay(name, 18_000), kind);
    expect(events.length).toBeGreaterThan(0);
    for (const e of events) expect(e.text?.trim().length).toBeGreaterThan(20);
  });

  it.each(['summarization', 'hybrid'])('%s: a summary names the messages it replaced: recorded ones, or an earlier summary', async (name) => {
    const summaries = ofKind(await replay(name), 'summarized');
    expect(summaries.length).toBeGreaterThan(0);
    const earlier = new Set<string>();
    for (const e of summaries) {
      expect(e.messageIds!.length).toBeGreaterThan(0);
      expect(e.messageIds!.every((id) => scenarioIds.has(id) || earlier.has(id))).toBe(true);
      earlier.add(e.messageId!);
    }
  });

  it('window: a removal names exactly the messages it dropped', async () => {
    const run = await replay('window');
    const removed = ofKind(run, 'removed');
    expect(removed.length).toBeGreaterThan(0);
    for (const e of removed) {
      const dropped = Number(/dropped (\d+) messages/.exec(e.detail)![1]);
      expect(e.messageIds).toHaveLength(dropped);
    }
  });

  it('progressive-removal: removals and scratchpad summaries name their messages', async () => {
    const run = await replay('progressive-removal', 6000);
    const acted = [...ofKind(run, 'removed'), ...ofKind(run, 'summarized')];
    expect(acted.length).toBeGreaterThan(0);
    for (const e of acted) expect(e.messageIds!.length).toBeGreaterThan(0);
    for (const e of ofKind(run, 'summarized')) expect(e.text).toContain('# Task Scratchpad');
  });

  it('masking: a restart names the messages it carried over and keeps its marker', async () => {
    const restarts = ofKind(await replay('masking', 8192, 1500), 'restart');
    expect(restarts.length).toBeGreaterThan(0);
    for (const e of restarts) {
      const carried = Number(/carried (\d+) messages/.exec(e.detail)![1]);
      expect(e.messageIds).toHaveLength(carried);
      expect(e.text?.length).toBeGreaterThan(0);
    }
  });
});
