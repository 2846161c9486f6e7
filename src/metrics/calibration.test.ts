import fc from 'fast-check';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { calibrationOf, calibrationSets, loadRuns, type CalibrationSet } from '../../scripts/calibration-figures.js';
import { DATA_DIR, REPO_ROOT } from '../../scripts/bundle-scenarios.js';
import { userMessage } from '../core/messages.js';
import type { CalibrationRecord } from '../core/run-records.js';
import { counterFrom, createTokenCounter, ENCODINGS, PER_CONTEXT_TOKENS, PER_MESSAGE_TOKENS, withTools, type TokenCounter } from '../core/tokens.js';
import { toolsText } from '../core/tools.js';
import { loadScenario } from '../scenarios/load.js';
import { parseScenario, type Scenario } from '../scenarios/scenario.js';
import {
  BUILT_IN_CALIBRATIONS,
  calibratedCounter,
  calibrationKey,
  calibrationModelText,
  calibrationWarning,
  CALIBRATION_FOLDS,
  fitByModel,
  fitCalibration,
  fitFactor,
  fitOverheadAndFactor,
  pctErrors,
  scaledCounter,
  storedCalibration,
  usageSamples,
  type UsageSample,
} from './calibration.js';

/** An OpenHands instance whose every call file the fixtures hold. */
const INSTANCE = path.join(REPO_ROOT, 'fixtures/trajectories/openhands-codeact-sonnet35-swebench-verified/llm_completions/astropy__astropy-12907');

/** A counter whose text count is the text's length: hand-computable. */
const lengthCounter = (): TokenCounter => counterFrom('o200k_base', (text) => text.length);

const sample = (local: number, recorded: number, index = 0): UsageSample => ({ index, local, recorded });
/** Requests whose provider count is exactly overhead + factor x local. */
const linear = (factor: number, overhead: number, locals: readonly number[]): UsageSample[] => locals.map((local) => sample(local, overhead + factor * local));

const TOOLS = [{ name: 'bash', description: 'Run a shell command.', parameters: { type: 'object', properties: { command: { type: 'string' } } } }];

function scenario(model: string, usages: (number | undefined)[], tools?: typeof TOOLS): Scenario {
  const messages: unknown[] = [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: 'Fix the bug in add.py.' },
  ];
  usages.forEach((promptTokens, i) => {
    messages.push({
      role: 'assistant',
      content: `step ${i}: let me look`,
      toolCalls: [{ id: `c${i}`, name: 'bash', arguments: { command: `cat file${i}.py` } }],
      ...(promptTokens === undefined ? {} : { usage: { promptTokens } }),
    });
    messages.push({ role: 'tool', toolCallId: `c${i}`, content: `def add(a, b):\n    return a - b  # ${i}\n`.repeat(i + 1) });
  });
  return parseScenario({ ctxbench: 1, id: `s-${model.replace(/[/:]/g, '-')}`, model: { name: model }, ...(tools ? { tools } : {}), messages }, 'hand-built.json');
}

const record = (patch: Partial<CalibrationRecord>): CalibrationRecord => ({
  batchId: 'b',
  model: 'claude-3-5-sonnet',
  encoding: 'o200k_base',
  factor: 1.2,
  overhead: 0,
  source: 'fitted',
  samples: 10,
  scenarios: 3,
  ...patch,
});

// ---------------------------------------------------------------------------------------------------
// The fits: hand-computed.
// ---------------------------------------------------------------------------------------------------

describe('fitFactor', () => {
  it('is undefined without samples, or when no sample has a local count', () => {
    expect(fitFactor([])).toBeUndefined();
    expect(fitFactor([sample(0, 100)])).toBeUndefined();
  });

  it('picks the weighted median of recorded/local (weights local/recorded)', () => {
    // ratios 1.1 (w 100/110), 1.2 (w 200/240), 1.25 (w 100/125); half the weight is reached at 1.2.
    const list = [sample(100, 110), sample(100, 125), sample(200, 240)];
    expect(fitFactor(list)).toBeCloseTo(1.2, 12);
    for (const f of [1.1, 1.25]) expect(pctErrors(list, f).meanAbsPctError).toBeGreaterThan(pctErrors(list, 1.2).meanAbsPctError);
  });

  it('takes the midpoint when exactly half the weight lies on each side (every factor between is optimal)', () => {
    // ratios 1 (w 1), 2 (w 0.5), 2 (w 0.5): MAPE is 1/3 anywhere in [1, 2].
    expect(fitFactor([sample(100, 100), sample(100, 200), sample(100, 200)])).toBe(1.5);
  });

  it('with an overhead, fits what is left of each request: (recorded - overhead) / local', () => {
    expect(fitFactor(linear(1.3, 500, [1000, 4000, 9000]), 500)).toBeCloseTo(1.3, 12);
  });

  it('minimizes the mean absolute percentage error (no factor on a fine grid around it does better)', () => {
    const samples = fc.array(fc.record({ local: fc.integer({ min: 1, max: 100_000 }), ratio: fc.double({ min: 0.5, max: 2, noNaN: true }) }), { minLength: 1, maxLength: 30 });
    fc.assert(
      fc.property(samples, (raw) => {
        const list = raw.map((s) => sample(s.local, Math.max(1, Math.round(s.local * s.ratio))));
        const factor = fitFactor(list)!;
        const best = pctErrors(list, factor).meanAbsPctError;
        for (let k = -50; k <= 50; k++) expect(pctErrors(list, factor * (1 + k / 500)).meanAbsPctError).toBeGreaterThanOrEqual(best - 1e-9);
      }),
      { numRuns: 100 },
    );
  });
});

describe('fitOverheadAndFactor', () => {
  it('recovers a fixed cost per request and a factor that fit exactly (a factor alone cannot)', () => {
    const list = linear(1.25, 800, [1200, 3000, 9000, 30000]);
    expect(fitOverheadAndFactor(list)).toEqual({ factor: expect.closeTo(1.25, 9), overhead: 800 });
    expect(pctErrors(list, 1.25, 800).meanAbsPctError).toBeCloseTo(0, 9);
    expect(pctErrors(list, fitFactor(list)!).meanAbsPctError).toBeGreaterThan(3);
  });

  it('keeps the overhead a whole number from 0 to the smallest request, and 0 when a factor fits alone', () => {
    expect(fitOverheadAndFactor(linear(1.1, 0, [500, 2000, 7000]))).toEqual({ factor: expect.closeTo(1.1, 9), overhead: 0 });
    const { overhead } = fitOverheadAndFactor([sample(10, 900), sample(20, 950), sample(30, 1000)])!;
    expect(Number.isInteger(overhead)).toBe(true);
    expect(overhead).toBeLessThanOrEqual(900);
  });

  it('no overhead and factor near it do better (the search finds the joint minimum)', () => {
    const samples = fc.array(fc.record({ local: fc.integer({ min: 50, max: 50_000 }), noise: fc.double({ min: -0.08, max: 0.08, noNaN: true }) }), { minLength: 2, maxLength: 25 });
    fc.assert(
      fc.property(samples, fc.integer({ min: 0, max: 2000 }), fc.double({ min: 0.8, max: 1.5, noNaN: true }), (raw, a, f) => {
        const list = raw.map((s) => sample(s.local, Math.max(1, Math.round((a + f * s.local) * (1 + s.noise)))));
        const fit = fitOverheadAndFactor(list)!;
        const best = pctErrors(list, fit.factor, fit.overhead).meanAbsPctError;
        const top = Math.min(...list.map((s) => s.recorded));
        for (const overhead of [0, fit.overhead - 7, fit.overhead - 1, fit.overhead + 1, fit.overhead + 7, top].filter((o) => o >= 0 && o <= top)) {
          expect(pctErrors(list, fitFactor(list, overhead)!, overhead).meanAbsPctError).toBeGreaterThanOrEqual(best - 1e-9);
        }
      }),
      { numRuns: 60 },
    );
  });
});

describe('fitCalibration (by scenario: in sample, out of sample, the model kept)', () => {
  it('is undefined without usable samples', () => {
    expect(fitCalibration([])).toBeUndefined();
    expect(fitCalibration([[sample(0, 10)], []])).toBeUndefined();
  });

  it('with one scenario: the factor alone, its errors in sample, none out of sample', () => {
    const fit = fitCalibration([[sample(100, 110), sample(100, 125), sample(200, 240)]])!;
    expect(fit).toMatchObject({ factor: expect.closeTo(1.2, 12), overhead: 0, samples: 3, scenarios: 1, outOfSample: undefined });
    const before = (-10 / 110 - 25 / 125 - 40 / 240) / 3;
    expect(fit.before.meanPctError).toBeCloseTo(before * 100, 10);
    expect(fit.before.meanAbsPctError).toBeCloseTo(-before * 100, 10);
    expect(fit.after.meanAbsPctError).toBeCloseTo(((10 / 110 + 5 / 125) / 3) * 100, 10);
  });

  it("scores out of sample: each scenario's requests estimated by the fit on the other scenarios (leave one out)", () => {
    const scenarios = [[sample(100, 110)], [sample(100, 120), sample(300, 330)], [sample(200, 260)]];
    const fit = fitCalibration(scenarios)!;
    const expected = scenarios.flatMap((own, i) => {
      const factor = fitFactor(scenarios.filter((_, j) => j !== i).flat())!;
      return own.map((s) => (factor * s.local - s.recorded) / s.recorded);
    });
    expect(fit.outOfSample!.meanAbsPctError).toBeCloseTo((expected.reduce((a, e) => a + Math.abs(e), 0) / expected.length) * 100, 10);
    expect(fit.outOfSample!.meanAbsPctError).toBeGreaterThan(fit.after.meanAbsPctError);
    expect(fit.scenarios).toBe(3);
  });

  it('keeps the overhead model when it does better out of sample: a fixed cost per request (tool definitions) that a factor gets wrong on small requests', () => {
    const scenarios = [linear(1.2, 1500, [800, 20000]), linear(1.2, 1500, [1500, 30000]), linear(1.2, 1500, [3000, 12000])];
    const fit = fitCalibration(scenarios)!;
    expect(fit).toMatchObject({ factor: expect.closeTo(1.2, 9), overhead: 1500 });
    expect(fit.outOfSample!.meanAbsPctError).toBeCloseTo(0, 9);
  });

  it('keeps the factor alone when the overhead does not do better out of sample (a second parameter must earn its place)', () => {
    const scenarios = [linear(1.15, 0, [500, 9000]), linear(1.15, 0, [700, 4000]), linear(1.15, 0, [1200, 15000])];
    expect(fitCalibration(scenarios)).toMatchObject({ factor: expect.closeTo(1.15, 9), overhead: 0 });
  });

  it(`splits more than ${CALIBRATION_FOLDS} scenarios into ${CALIBRATION_FOLDS} folds (scenario i in fold i mod ${CALIBRATION_FOLDS})`, () => {
    const scenarios = Array.from({ length: 23 }, (_, i) => [sample(100 + i * 37, Math.round((100 + i * 37) * (1.1 + (i % 5) * 0.02)))]);
    const tenFold = (fit: (list: readonly UsageSample[]) => { factor: number; overhead: number }): number => {
      const errors = scenarios.flatMap((own, i) => {
        const model = fit(scenarios.filter((_, j) => j % CALIBRATION_FOLDS !== i % CALIBRATION_FOLDS).flat());
        return own.map((s) => Math.abs(model.overhead + model.factor * s.local - s.recorded) / s.recorded);
      });
      return (errors.reduce((x, y) => x + y, 0) / errors.length) * 100;
    };
    const best = Math.min(tenFold((list) => ({ factor: fitFactor(list)!, overhead: 0 })), tenFold((list) => fitOverheadAndFactor(list)!));
    expect(fitCalibration(scenarios)!.outOfSample!.meanAbsPctError).toBeCloseTo(best, 10);
  });
});

describe('pctErrors', () => {
  it('is zero without samples, else the signed and absolute mean errors of overhead + factor x local, in percent', () => {
    expect(pctErrors([])).toEqual({ meanAbsPctError: 0, meanPctError: 0 });
    const e = pctErrors([sample(90, 100), sample(110, 100)]);
    expect(e.meanAbsPctError).toBeCloseTo(10, 10);
    expect(e.meanPctError).toBeCloseTo(0, 10);
    expect(pctErrors([sample(80, 100)], 1, 10).meanPctError).toBeCloseTo(-10, 10);
  });
});

// ---------------------------------------------------------------------------------------------------
// Keys, stored calibrations, counters.
// ---------------------------------------------------------------------------------------------------

describe('calibrationKey / storedCalibration / calibratedCounter', () => {
  it('keys by the model the registry resolves, and encoding', () => {
    expect(calibrationKey('openrouter/google/Gemini-3-Pro-Preview', 'o200k_base')).toBe('gemini-3-pro-preview|o200k_base');
    expect(calibrationKey('google/gemini-3-pro-preview', 'cl100k_base')).toBe('gemini-3-pro-preview|cl100k_base');
    expect(calibrationKey('ollama/qwen3-coder:30b', 'chars4')).toBe('qwen3-coder:30b|chars4');
    expect(calibrationKey('my-own-model', 'o200k_base')).toBe('my-own-model|o200k_base');
  });

  it('regression: the names one trajectory alternates between (litellm proxy, Bedrock) are one model, one key', () => {
    expect(calibrationKey('litellm_proxy/claude-3-5-sonnet-20241022', 'o200k_base')).toBe('claude-3-5-sonnet|o200k_base');
    expect(calibrationKey('litellm_proxy/anthropic.claude-3-5-sonnet-20241022-v2:0', 'o200k_base')).toBe('claude-3-5-sonnet|o200k_base');
    const counter = lengthCounter();
    const fits = fitByModel([scenario('litellm_proxy/claude-3-5-sonnet-20241022', [400, 800]), scenario('anthropic.claude-3-5-sonnet-20241022-v2:0', [500])], counter);
    expect([...fits.keys()]).toEqual(['claude-3-5-sonnet|o200k_base']);
    expect(fits.get('claude-3-5-sonnet|o200k_base')).toMatchObject({ samples: 3, scenarios: 2 });
  });

  it('finds the built-in calibration of a routed model name, none for one without', () => {
    expect(storedCalibration('google/gemini-3-pro-preview', 'o200k_base')).toBe(BUILT_IN_CALIBRATIONS[0]);
    expect(storedCalibration('litellm_proxy/anthropic.claude-3-5-sonnet-20241022-v2:0', 'o200k_base')?.model).toBe('claude-3-5-sonnet');
    expect(storedCalibration('gpt-4o', 'o200k_base')).toBeUndefined();
    expect(storedCalibration('gpt-4o', 'o200k_base', [{ model: 'gpt-4o-2024-08-06', encoding: 'o200k_base', factor: 1.01, overhead: 0 }])?.factor).toBe(1.01);
  });

  it('calibrates a counter for a model with a stored calibration and leaves it alone otherwise', () => {
    const base = lengthCounter();
    const m = userMessage({ id: 'm0', content: 'x'.repeat(97) }); // 100 tokens
    expect(calibratedCounter(base, 'gpt-4o')).toBe(base);
    const claude = storedCalibration('claude-3-5-sonnet', 'o200k_base')!;
    const calibrated = calibratedCounter(base, 'litellm_proxy/claude-3-5-sonnet-20241022');
    expect(calibrated.countMessage(m)).toBe(Math.round(100 * claude.factor));
    expect(calibrated.countContext([m])).toBe(PER_CONTEXT_TOKENS + claude.overhead + Math.round(100 * claude.factor));
  });

  it('describes a calibration: the factor, and the overhead per request when there is one', () => {
    expect(calibrationModelText({ factor: 1.17, overhead: 0 })).toBe('x1.170');
    expect(calibrationModelText({ factor: 1.2331, overhead: 519 })).toBe('x1.233 + 519 tokens per request');
  });
});

describe('scaledCounter', () => {
  const a = userMessage({ id: 'm0', content: 'abcdefghij' }); // 3 + 10 = 13
  const b = userMessage({ id: 'm1', content: 'abcdefg' }); // 3 + 7 = 10

  it('rounds each message count times the factor, adds the overhead to every context, and keeps the priming unscaled', () => {
    const base = lengthCounter();
    const scaled = scaledCounter(base, 1.5);
    expect(base.countMessage(a)).toBe(PER_MESSAGE_TOKENS + 10);
    expect(scaled.countMessage(a)).toBe(20); // 19.5
    expect(scaled.countMessage(b)).toBe(15);
    expect(scaled.countContext([a, b])).toBe(PER_CONTEXT_TOKENS + 20 + 15);
    expect(scaled.countContext([])).toBe(PER_CONTEXT_TOKENS);
    expect(scaled.countText('abc')).toBe(5); // 4.5
    expect(scaled.encoding).toBe(base.encoding);
    const withOverhead = scaledCounter(base, 1.5, 300.4);
    expect(withOverhead.countContext([a, b])).toBe(PER_CONTEXT_TOKENS + 300 + 20 + 15);
    expect(withOverhead.countMessage(a)).toBe(20);
  });

  it('scales the tool definitions a scenario sends with the rest (withTools over it)', () => {
    const scaled = withTools(scaledCounter(lengthCounter(), 2, 10), TOOLS);
    expect(scaled.toolTokens).toBe(2 * toolsText(TOOLS).length);
    expect(scaled.countContext([a])).toBe(PER_CONTEXT_TOKENS + 10 + 26 + 2 * toolsText(TOOLS).length);
  });

  it('shares the base counter cache and stats: each message is tokenized once', () => {
    const base = lengthCounter();
    const scaled = scaledCounter(base, 1.2);
    base.countMessage(a);
    expect(base.stats).toEqual({ texts: 1, chars: 10 });
    scaled.countContext([a, b]);
    scaled.countContext([a, b]);
    expect(scaled.stats).toBe(base.stats);
    expect(base.stats).toEqual({ texts: 2, chars: 17 });
  });

  it('returns the counter itself for factor 1 without overhead, and rejects a factor or overhead out of range', () => {
    const base = lengthCounter();
    expect(scaledCounter(base, 1)).toBe(base);
    for (const bad of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) expect(() => scaledCounter(base, bad)).toThrow(RangeError);
    for (const bad of [-1, Number.NaN]) expect(() => scaledCounter(base, 1.1, bad)).toThrow(RangeError);
  });
});

describe('usageSamples', () => {
  it('gives, for each turn with a recorded prompt > 0, the count of the request before it', async () => {
    const s = scenario('google/gemini-3-pro-preview', [500, undefined, 0, 900, 1200]);
    for (const counter of [lengthCounter(), await createTokenCounter('o200k_base'), scaledCounter(lengthCounter(), 1.3, 40)]) {
      const samples = usageSamples(s, counter);
      expect(samples.map((x) => x.recorded)).toEqual([500, 900, 1200]);
      expect(samples.map((x) => x.index)).toEqual([2, 8, 10]);
      for (const x of samples) expect(x.local).toBe(counter.countContext(s.messages.slice(0, x.index)));
    }
  });

  it("counts the scenario's tool definitions in every request, as the provider billed them", () => {
    const counter = lengthCounter();
    const plain = usageSamples(scenario('claude-3-5-sonnet', [500, 900]), counter);
    const tooled = usageSamples(scenario('claude-3-5-sonnet', [500, 900], TOOLS), counter);
    expect(tooled.map((x) => x.local - plain[tooled.indexOf(x)]!.local)).toEqual([toolsText(TOOLS).length, toolsText(TOOLS).length]);
  });

  it('is linear: one countMessage per message, no recount of the prefix', () => {
    const s = scenario('m', [10, 20, 30, 40]);
    const base = lengthCounter();
    let messages = 0;
    let contexts = 0;
    const spy: TokenCounter = { ...base, countMessage: (m) => (messages++, base.countMessage(m)), countContext: (ms) => (contexts++, base.countContext(ms)) };
    expect(usageSamples(s, spy)).toHaveLength(4);
    expect(messages).toBe(s.messages.length);
    expect(contexts).toBe(1); // the fixed part: countContext([])
  });

  it('pools per model in fitByModel, one list per scenario', () => {
    const counter = lengthCounter();
    const g = scenario('google/gemini-3-pro-preview', [400, 800]);
    const q = scenario('ollama/qwen3-coder:30b', [undefined]);
    const fits = fitByModel([g, q, g], counter);
    expect([...fits.keys()]).toEqual(['gemini-3-pro-preview|o200k_base']);
    expect(fits.get('gemini-3-pro-preview|o200k_base')).toEqual(fitCalibration([usageSamples(g, counter), usageSamples(g, counter)]));
  });
});

describe('calibrationWarning', () => {
  it('warns above 5%, judged out of sample where the fit could be', () => {
    expect(calibrationWarning(record({ after: { meanAbsPctError: 2, meanPctError: 0 }, outOfSample: { meanAbsPctError: 7.34, meanPctError: 1 } }))).toBe(
      'the token calibration of claude-3-5-sonnet is off by 7.3% out of sample (above 5%)',
    );
    expect(calibrationWarning(record({ after: { meanAbsPctError: 6, meanPctError: 0 }, outOfSample: { meanAbsPctError: 4.9, meanPctError: 1 } }))).toBeUndefined();
  });

  it('else in sample (one scenario), or on the recorded requests a stored calibration was checked on; never without any', () => {
    expect(calibrationWarning(record({ scenarios: 1, after: { meanAbsPctError: 38, meanPctError: 30 } }))).toBe('the token calibration of claude-3-5-sonnet is off by 38.0% in sample (above 5%)');
    expect(calibrationWarning(record({ source: 'file', after: { meanAbsPctError: 6.5, meanPctError: 3 } }))).toBe(
      "the token calibration of claude-3-5-sonnet is off by 6.5% on these scenarios' recorded requests (above 5%)",
    );
    expect(calibrationWarning(record({ source: 'built-in', samples: 0, scenarios: 0 }))).toBeUndefined();
    expect(calibrationWarning(record({ after: { meanAbsPctError: 5, meanPctError: 5 } }))).toBeUndefined();
  });
});

// ---------------------------------------------------------------------------------------------------
// The real figures: recorded provider usage vs local counts, on ../shared/data (README "Token
// calibration"; scripts/calibration-figures.ts prints them).
// ---------------------------------------------------------------------------------------------------

const fmt = (c: Awaited<ReturnType<typeof calibrationOf>>): string =>
  `${calibrationModelText(c)} over ${c.samples} requests of ${c.scenarios}: before ${c.before.meanPctError.toFixed(2)}% signed / ${c.before.meanAbsPctError.toFixed(2)}% abs, ` +
  `after ${c.after.meanAbsPctError.toFixed(2)}% in sample, ${c.outOfSample?.meanAbsPctError.toFixed(2)}% out of sample`;

describe.skipIf(!existsSync(DATA_DIR))('calibration on the recorded trajectories in ../shared/data', () => {
  let sets: CalibrationSet[];
  const scenarios = new Map<string, Scenario[]>();
  beforeAll(async () => {
    sets = calibrationSets();
    for (const set of sets) scenarios.set(set.agent, await loadRuns(set.runs));
  }, 60_000);

  it('has the 18 mini-swe-agent and the 25 OpenHands trajectories, 4 and 3 of them bundled', () => {
    expect(sets.map((s) => [s.agent, s.runs.length, s.bundled.size])).toEqual([
      ['mini-swe-agent + Gemini 3 Pro', 18, 4],
      ['OpenHands + Claude 3.5 Sonnet', 25, 3],
    ]);
  });

  it.each(ENCODINGS)('the built-in %s calibrations are what all of them fit', async (encoding) => {
    for (const set of sets) {
      const fit = await calibrationOf(scenarios.get(set.agent)!, encoding);
      console.log(`[calibration] ${set.agent}, all, ${encoding}: ${fmt(fit)}`);
      const stored = storedCalibration(scenarios.get(set.agent)![0]!.model.name, encoding)!;
      expect(stored.factor).toBeCloseTo(fit.factor, 3);
      expect(stored.overhead).toBe(fit.overhead);
      expect(stored.fitted).toEqual({ requests: fit.samples, scenarios: fit.scenarios, inSample: +fit.after.meanAbsPctError.toFixed(2), outOfSample: +fit.outOfSample!.meanAbsPctError.toFixed(2) });
    }
  });

  // Issue 14, done when: on recorded runs the project does not ship, the out-of-sample calibrated error
  // is within 3% for mini-swe-agent/Gemini and within 5% for OpenHands/Claude, over all their requests.
  it.each([
    ['mini-swe-agent + Gemini 3 Pro', 3],
    ['OpenHands + Claude 3.5 Sonnet', 5],
  ] as const)('%s, the trajectories not shipped: within %d% out of sample (o200k_base)', async (agent, limit) => {
    const set = sets.find((s) => s.agent === agent)!;
    const unshipped = await loadRuns(set.runs.filter((files) => !set.bundled.has(files[0]!)));
    const fit = await calibrationOf(unshipped, 'o200k_base');
    console.log(`[calibration] ${agent}, not shipped: ${fmt(fit)}`);
    expect(fit.scenarios).toBe(set.runs.length - set.bundled.size);
    expect(fit.outOfSample!.meanAbsPctError).toBeLessThan(limit);
    expect(fit.before.meanAbsPctError).toBeGreaterThan(10);
  });

  it("every request of an OpenHands run (astropy__astropy-12907, its ten calls recorded): the tool definitions are most of step 0, and the built-in calibration holds on every request", async () => {
    const { scenario } = await loadScenario(path.join(DATA_DIR, 'openhands-codeact-sonnet35-swebench-verified/llm_completions/astropy__astropy-12907/litellm_proxy__claude-3-5-sonnet-20241022-1733339462.430701.json'));
    // The fixture holds the instance's ten call files (trimmed content, the usage upstream recorded); ../shared its last call whole.
    const calls = readdirSync(INSTANCE).sort().map((f) => (JSON.parse(readFileSync(path.join(INSTANCE, f), 'utf8')) as { response: { usage: { prompt_tokens: number } } }).response.usage.prompt_tokens);
    const counter = await createTokenCounter('o200k_base');
    const local = (k: number, tools: boolean): number => (tools ? withTools(counter, scenario.tools) : counter).countContext(scenario.messages.slice(0, 2 * (k + 1)));
    const samples = calls.map((recorded, k) => sample(local(k, true), recorded, 2 * (k + 1)));
    // Step 0: the system prompt and the task are a third of what was billed; with the tool definitions, three quarters.
    expect(local(0, false) / calls[0]!).toBeLessThan(0.35);
    expect(local(0, true) / calls[0]!).toBeGreaterThan(0.7);
    const claude = storedCalibration('claude-3-5-sonnet', 'o200k_base')!;
    const errors = samples.map((x) => Math.abs(claude.overhead + claude.factor * x.local - x.recorded) / x.recorded);
    console.log(`[calibration] astropy__astropy-12907, all ten calls, built in: ${errors.map((e) => (e * 100).toFixed(1)).join(' ')} (%)`);
    expect(pctErrors(samples, claude.factor, claude.overhead).meanAbsPctError).toBeLessThan(5);
    expect(Math.max(...errors)).toBeLessThan(0.15);
  });
});
