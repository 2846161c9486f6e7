/**
 * `verifyStrategy` in process: every built-in strategy and preset keeps the four properties; each of
 * the deliberately broken example strategies (written against `ctxbench`, loaded from its file as
 * `bench verify` loads it) breaks exactly the property it was written to break, with a small shrunk
 * counterexample that names the rule.
 */
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { defaultParams, type Params } from '../core/params.js';
import type { StrategyDefinition } from '../core/strategy.js';
import { createTokenCounter, type TokenCounter } from '../core/tokens.js';
import { loadStrategyFile } from '../runner/strategy-file.js';
import { defineStrategy, strategyOrigin } from '../sdk/index.js';
import { select } from '../strategies/index.js';
import { verifyStrategy, type PropertyOutcome } from './verify.js';

const EXAMPLES = path.resolve(import.meta.dirname, '../../examples/strategies');

let counter: TokenCounter;
beforeAll(async () => {
  counter = await createTokenCounter('o200k_base');
});

const verify = (strategy: StrategyDefinition, params: Params = defaultParams(strategy.params), runs = 10): Promise<PropertyOutcome[]> =>
  verifyStrategy({ strategy, params, counter, runs, seed: 42, strategyTimeout: 10 });
const broken = (outcomes: readonly PropertyOutcome[]): string[] => outcomes.filter((o) => o.failure).map((o) => o.property.name);

describe('every built-in keeps every property', () => {
  it.each(select(['all']))('$name', async ({ strategy, preset }) => {
    const outcomes = await verify(strategy, { ...defaultParams(strategy.params), ...preset?.params });
    expect(outcomes.map((o) => o.property.name)).toEqual(['pairing', 'in-place', 'fits', 'deterministic']);
    expect(outcomes.map((o) => o.failure?.broken.rule)).toEqual([undefined, undefined, undefined, undefined]);
    expect(outcomes.every((o) => o.cases === 10)).toBe(true);
  });
});

describe('a broken outside strategy fails the property it breaks', () => {
  const load = async (file: string): Promise<StrategyDefinition> => (await loadStrategyFile(path.join(EXAMPLES, file))).strategy;

  it('dropping tool results but keeping their calls breaks pairing, shrunk to a few messages around one unanswered call', async () => {
    const outcomes = await verify(await load('broken-drops-results.ts'), undefined, 30);
    expect(broken(outcomes)).toEqual(['pairing']);
    const { broken: rule, case: shrunk, shrinks } = outcomes[0]!.failure!;
    const c = shrunk!;
    expect(rule.rule).toMatch(/^(unmatched_tool_use|parallel_missing_result) at \[\d+\]: call call_\d+_\d+ has no result/);
    expect(rule.purpose).toBe('agent');
    // Shrunk to a history just long enough to show it (three results, so one is old enough to drop: at most three steps) and the smallest window.
    expect(shrinks).toBeGreaterThan(0);
    expect(c.scenario.messages.filter((m) => m.role === 'assistant').length).toBeLessThanOrEqual(3);
    expect(c.scenario.messages.length).toBeLessThanOrEqual(9);
    expect(c.window).toBe(300);
    expect(rule.messages!.length).toBeLessThanOrEqual(7);
    const unanswered = rule.messages!.find((m) => m.role === 'assistant' && m.toolCalls.some((call) => !rule.messages!.some((r) => r.role === 'tool' && r.toolCallId === call.id)));
    expect(unanswered).toBeDefined();
  });

  it('editing a message in place breaks no-in-place-edits, named with the hook and step', async () => {
    const outcomes = await verify(await load('broken-edits-in-place.ts'), undefined, 30);
    expect(broken(outcomes)).toEqual(['in-place']);
    const { broken: rule } = outcomes[1]!.failure!;
    expect(rule.rule).toMatch(/^in-place edit in beforeRequest: it wrote to a frozen message \(Cannot assign to read only property 'content'/);
    expect(rule.step).toBe(1); // the first step with a tool result to shorten
    expect(rule.messages!.some((m) => m.role === 'tool' && m.content.length > 200)).toBe(true);
  });

  it('a message the strategy made and later changed, or a list it was given and changed, is caught by comparison', async () => {
    const rewritesItsNote = defineStrategy({
      name: 'rewrites-its-note',
      summary: 'puts a progress note of its own after the system prompt, and rewrites that same object each step',
      create: () => {
        const note = { role: 'user' as const, id: 'note', content: '', origin: strategyOrigin('rewrites-its-note', 'note') }; // not frozen
        return {
          beforeRequest: ({ messages, step }) => {
            note.content = `progress at step ${step}`;
            const rest = messages.filter((m) => m !== note);
            return { messages: [rest[0]!, note, ...rest.slice(1)] };
          },
        };
      },
    });
    const own = await verify(rewritesItsNote, undefined, 30);
    expect(broken(own)).toEqual(['in-place']);
    expect(own[1]!.failure!.broken.rule).toBe('in-place edit in beforeRequest: message note (user) was changed in place: content differs');
    const shrinking = defineStrategy({
      name: 'pops-the-list',
      summary: 'drops the newest user follow-up from the list it was given',
      create: () => ({
        beforeRequest: ({ messages }) => {
          if (messages.at(-1)?.role === 'user' && messages.length > 2) (messages as unknown as unknown[]).pop();
          return { messages };
        },
      }),
    });
    const outcomes = await verify(shrinking, undefined, 30);
    expect(broken(outcomes)).toEqual(['in-place']);
    expect(outcomes[1]!.failure!.broken.rule).toMatch(/the message list it was given was changed in place \(\d+ messages, now \d+\)/);
  });

  it('Math.random breaks determinism, with the two versions of the message that differs', async () => {
    const outcomes = await verify(await load('broken-random.ts'), undefined, 30);
    expect(broken(outcomes)).toEqual(['deterministic']);
    expect(outcomes[3]!.failure!.broken.rule).toMatch(/^not deterministic: request \d+ \(agent, step \d+\) differs between the replays: message \[\d+\] \(m\d+\) is ".*", then ".*"$/);
  });
});

describe('a strategy the runner refuses breaks every property (its runs end in an error)', () => {
  const refused = (name: string, create: () => ReturnType<StrategyDefinition['create']>): StrategyDefinition => defineStrategy({ name, summary: name, create });
  const rules = (outcomes: readonly PropertyOutcome[]): (string | undefined)[] => outcomes.map((o) => o.failure?.broken.rule);

  it('a hook that returns no plan, or no message list, or a create that throws: the runner\'s line, for each property', async () => {
    const noPlan = await verify(refused('no-plan', () => ({ beforeRequest: () => null as never })), undefined, 3);
    expect(rules(noPlan)).toEqual(Array(4).fill('the run ended in an error: strategy no-plan, beforeRequest at step 0: returned no plan ({ messages })'));
    const noList = await verify(refused('no-list', () => ({ beforeRequest: () => ({ messages: 'nope' }) as never })), undefined, 3);
    expect(rules(noList)).toEqual(Array(4).fill('the run ended in an error: strategy no-list, beforeRequest at step 0: returned no message list (plan.messages)'));
    const throws = await verify(refused('throws-create', () => { throw new Error('no state'); }), undefined, 3);
    expect(rules(throws)).toEqual(Array(4).fill('the run ended in an error: strategy throws-create, create at step 0: threw: no state'));
  });

  it('a hook that never answers breaks each property once its timeout passes, and is not shrunk (each smaller case would wait as long)', async () => {
    const never = refused('never', () => ({ beforeRequest: () => new Promise<never>(() => undefined) }));
    const outcomes = await verifyStrategy({ strategy: never, params: {}, counter, runs: 3, seed: 42, strategyTimeout: 1 });
    expect(rules(outcomes)).toEqual(Array(4).fill('the run ended in an error: strategy never, beforeRequest at step 0: no answer within 1 s (--strategy-timeout)'));
    expect(outcomes.map((o) => o.failure?.shrinks)).toEqual([0, 0, 0, 0]);
  }, 30_000);
});
