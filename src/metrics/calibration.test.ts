import fc from 'fast-check';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { userMessage } from '../core/messages.js';
import { counterFrom, createTokenCounter, ENCODINGS, PER_CONTEXT_TOKENS, PER_MESSAGE_TOKENS, type Encoding, type TokenCounter } from '../core/tokens.js';
import { loadScenario } from '../scenarios/load.js';
import { parseScenario, type Scenario } from '../scenarios/scenario.js';
import {
  calibratedCounter,
  calibrationKey,
  fitByModel,
  fitCalibration,
  FITTED_FACTORS,
  pctErrors,
  scaledCounter,
  storedFactor,
  usageSamples,
  type Calibration,
  type UsageSample,
} from './calibration.js';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SHARED = path.resolve(REPO_ROOT, '../shared/data/trajectories/mini-swe-agent-gemini3pro');
const BUNDLED = path.join(REPO_ROOT, 'scenarios/mini-swe-agent-gemini3pro');

/** A counter whose text count is the text's length: hand-computable. */
const lengthCounter = (): TokenCounter => counterFrom('o200k_base', (text) => text.length);

const sample = (local: number, recorded: number, index = 0): UsageSample => ({ index, local, recorded });

function scenario(model: string, usages: (number | undefined)[]): Scenario {
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
  return parseScenario({ ctxbench: 1, id: `s-${model.replace(/\//g, '-')}`, model: { name: model }, messages }, 'hand-built.json');
}

// ---------------------------------------------------------------------------------------------------
// fitCalibration: hand-computed.
// ---------------------------------------------------------------------------------------------------

describe('fitCalibration', () => {
  it('is undefined without samples, or when no sample has a local count', () => {
    expect(fitCalibration([])).toBeUndefined();
    expect(fitCalibration([sample(0, 100)])).toBeUndefined();
  });

  it('picks the weighted median of recorded/local (weights local/recorded) and reports both errors', () => {
    // ratios 1.1 (w 100/110), 1.2 (w 200/240), 1.25 (w 100/125); half the weight is reached at 1.2.
    const fit = fitCalibration([sample(100, 110), sample(100, 125), sample(200, 240)])!;
    expect(fit.factor).toBeCloseTo(1.2, 12);
    expect(fit.samples).toBe(3);
    // before: -10/110, -25/125, -40/240
    const before = (-10 / 110 - 25 / 125 - 40 / 240) / 3;
    expect(fit.before.meanPctError).toBeCloseTo(before * 100, 10);
    expect(fit.before.meanAbsPctError).toBeCloseTo(-before * 100, 10);
    // after (x1.2): +10/110, -5/125, 0/240
    expect(fit.after.meanAbsPctError).toBeCloseTo(((10 / 110 + 5 / 125) / 3) * 100, 10);
    expect(fit.after.meanPctError).toBeCloseTo(((10 / 110 - 5 / 125) / 3) * 100, 10);
    // it beats the neighbouring candidates (the other ratios)
    for (const f of [1.1, 1.25]) expect(pctErrors([sample(100, 110), sample(100, 125), sample(200, 240)], f).meanAbsPctError).toBeGreaterThan(fit.after.meanAbsPctError);
  });

  it('takes the midpoint when exactly half the weight lies on each side (every factor between is optimal)', () => {
    // ratios 1 (w 1), 2 (w 0.5), 2 (w 0.5): MAPE is 1/3 anywhere in [1, 2].
    const fit = fitCalibration([sample(100, 100), sample(100, 200), sample(100, 200)])!;
    expect(fit.factor).toBe(1.5);
    expect(fit.after.meanAbsPctError).toBeCloseTo(100 / 3, 10);
    expect(pctErrors([sample(100, 100), sample(100, 200), sample(100, 200)], 1).meanAbsPctError).toBeCloseTo(100 / 3, 10);
  });

  it('a single factor that fits exactly gives zero error after', () => {
    const fit = fitCalibration([sample(100, 115), sample(1000, 1150), sample(40, 46)])!;
    expect(fit.factor).toBeCloseTo(1.15, 12);
    expect(fit.before.meanPctError).toBeCloseTo((1 / 1.15 - 1) * 100, 10);
    expect(fit.after.meanAbsPctError).toBeCloseTo(0, 10);
  });

  it('minimizes the mean absolute percentage error (no factor on a fine grid around it does better)', () => {
    const samples = fc.array(
      fc.record({ local: fc.integer({ min: 1, max: 100_000 }), ratio: fc.double({ min: 0.5, max: 2, noNaN: true }) }),
      { minLength: 1, maxLength: 30 },
    );
    fc.assert(
      fc.property(samples, (raw) => {
        const list = raw.map((s) => sample(s.local, Math.max(1, Math.round(s.local * s.ratio))));
        const fit = fitCalibration(list)!;
        for (let k = -50; k <= 50; k++) {
          const f = fit.factor * (1 + k / 500);
          expect(pctErrors(list, f).meanAbsPctError).toBeGreaterThanOrEqual(fit.after.meanAbsPctError - 1e-9);
        }
      }),
      { numRuns: 100 },
    );
  });
});

describe('pctErrors', () => {
  it('is zero without samples, else the signed and absolute mean errors in percent', () => {
    expect(pctErrors([])).toEqual({ meanAbsPctError: 0, meanPctError: 0 });
    const e = pctErrors([sample(90, 100), sample(110, 100)]);
    expect(e.meanAbsPctError).toBeCloseTo(10, 10);
    expect(e.meanPctError).toBeCloseTo(0, 10);
  });
});

// ---------------------------------------------------------------------------------------------------
// Keys and stored factors.
// ---------------------------------------------------------------------------------------------------

describe('calibrationKey / storedFactor / calibratedCounter', () => {
  it('keys by normalized model name and encoding', () => {
    expect(calibrationKey('openrouter/google/Gemini-3-Pro-Preview', 'o200k_base')).toBe('gemini-3-pro-preview|o200k_base');
    expect(calibrationKey('google/gemini-3-pro-preview', 'cl100k_base')).toBe('gemini-3-pro-preview|cl100k_base');
    expect(calibrationKey('ollama/qwen3-coder:30b', 'chars4')).toBe('qwen3-coder:30b|chars4');
  });

  it('finds the stored factor for a routed model name, none for an unfitted one', () => {
    expect(storedFactor('google/gemini-3-pro-preview', 'o200k_base')).toBe(FITTED_FACTORS['gemini-3-pro-preview|o200k_base']);
    expect(storedFactor('gpt-4o', 'o200k_base')).toBeUndefined();
    expect(storedFactor('gpt-4o', 'o200k_base', { 'gpt-4o|o200k_base': 1.01 })).toBe(1.01);
  });

  it('scales a counter for a fitted model and leaves it alone otherwise', () => {
    const base = lengthCounter();
    const m = userMessage({ id: 'm0', content: 'x'.repeat(97) }); // 100 tokens
    expect(calibratedCounter(base, 'gpt-4o')).toBe(base);
    const calibrated = calibratedCounter(base, 'openrouter/google/gemini-3-pro-preview');
    expect(calibrated.countMessage(m)).toBe(Math.round(100 * FITTED_FACTORS['gemini-3-pro-preview|o200k_base']!));
  });
});

// ---------------------------------------------------------------------------------------------------
// scaledCounter.
// ---------------------------------------------------------------------------------------------------

describe('scaledCounter', () => {
  const a = userMessage({ id: 'm0', content: 'abcdefghij' }); // 3 + 10 = 13
  const b = userMessage({ id: 'm1', content: 'abcdefg' }); // 3 + 7 = 10

  it('rounds each message count times the factor, and keeps the priming unscaled', () => {
    const base = lengthCounter();
    const scaled = scaledCounter(base, 1.5);
    expect(base.countMessage(a)).toBe(PER_MESSAGE_TOKENS + 10);
    expect(scaled.countMessage(a)).toBe(20); // 19.5
    expect(scaled.countMessage(b)).toBe(15);
    expect(scaled.countContext([a, b])).toBe(PER_CONTEXT_TOKENS + 20 + 15);
    expect(scaled.countContext([])).toBe(PER_CONTEXT_TOKENS);
    expect(scaled.countText('abc')).toBe(5); // 4.5
    expect(scaled.encoding).toBe(base.encoding);
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

  it('returns the counter itself for factor 1 and rejects a factor that is not positive and finite', () => {
    const base = lengthCounter();
    expect(scaledCounter(base, 1)).toBe(base);
    for (const bad of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) expect(() => scaledCounter(base, bad)).toThrow(RangeError);
  });
});

// ---------------------------------------------------------------------------------------------------
// usageSamples.
// ---------------------------------------------------------------------------------------------------

describe('usageSamples', () => {
  it('gives, for each turn with a recorded prompt > 0, the count of the history before it', async () => {
    const s = scenario('google/gemini-3-pro-preview', [500, undefined, 0, 900, 1200]);
    for (const counter of [lengthCounter(), await createTokenCounter('o200k_base'), scaledCounter(lengthCounter(), 1.3)]) {
      const samples = usageSamples(s, counter);
      expect(samples.map((x) => x.recorded)).toEqual([500, 900, 1200]);
      expect(samples.map((x) => x.index)).toEqual([2, 8, 10]);
      for (const x of samples) expect(x.local).toBe(counter.countContext(s.messages.slice(0, x.index)));
    }
  });

  it('is linear: one countMessage per message, no recount of the prefix', () => {
    const s = scenario('m', [10, 20, 30, 40]);
    const base = lengthCounter();
    let messages = 0;
    let contexts = 0;
    const spy: TokenCounter = {
      ...base,
      countMessage: (m) => (messages++, base.countMessage(m)),
      countContext: (ms) => (contexts++, base.countContext(ms)),
    };
    expect(usageSamples(s, spy)).toHaveLength(4);
    expect(messages).toBe(s.messages.length);
    expect(contexts).toBe(1); // the priming: countContext([])
  });

  it('pools per model in fitByModel', () => {
    const counter = lengthCounter();
    const g = scenario('google/gemini-3-pro-preview', [400, 800]);
    const q = scenario('ollama/qwen3-coder:30b', [undefined]);
    const fits = fitByModel([g, q, g], counter);
    expect([...fits.keys()]).toEqual(['gemini-3-pro-preview|o200k_base']);
    const fit = fits.get('gemini-3-pro-preview|o200k_base')!;
    expect(fit.samples).toBe(4);
    expect(fit).toEqual(fitCalibration([...usageSamples(g, counter), ...usageSamples(g, counter)]));
  });
});

// ---------------------------------------------------------------------------------------------------
// The real figures: mini-swe-agent + Gemini 3 Pro, recorded provider usage vs local counts.
// ---------------------------------------------------------------------------------------------------

const fmt = (c: Calibration): string =>
  `factor ${c.factor.toFixed(4)} over ${c.samples} requests: before ${c.before.meanPctError.toFixed(2)}% signed / ${c.before.meanAbsPctError.toFixed(2)}% abs, ` +
  `after ${c.after.meanPctError.toFixed(2)}% signed / ${c.after.meanAbsPctError.toFixed(2)}% abs`;

async function loadAll(files: readonly string[]): Promise<Scenario[]> {
  return Promise.all(files.map(async (f) => (await loadScenario(f)).scenario));
}

async function fitFor(scenarios: readonly Scenario[], encoding: Encoding): Promise<{ fit: Calibration; counter: TokenCounter }> {
  const counter = await createTokenCounter(encoding);
  const fits = fitByModel(scenarios, counter);
  expect([...fits.keys()]).toEqual([calibrationKey('gemini-3-pro-preview', encoding)]);
  return { fit: [...fits.values()][0]!, counter };
}

/** Applying the factor through scaledCounter gives the fitted 'after' error (per-message rounding aside). */
function expectAppliedMatches(scenarios: readonly Scenario[], counter: TokenCounter, fit: Calibration): void {
  const scaled = scaledCounter(counter, fit.factor);
  const applied = pctErrors(scenarios.flatMap((s) => usageSamples(s, scaled)));
  expect(applied.meanAbsPctError).toBeCloseTo(fit.after.meanAbsPctError, 1);
}

const sharedFiles = existsSync(path.join(SHARED, 'trajs'))
  ? readdirSync(path.join(SHARED, 'trajs')).map((id) => path.join(SHARED, 'trajs', id, `${id}.traj.json`))
  : [];

describe.skipIf(sharedFiles.length === 0)('calibration on the 18 mini-swe-agent trajectories in ../shared/data', () => {
  let scenarios: Scenario[];
  beforeAll(async () => {
    scenarios = await loadAll(sharedFiles);
  });

  it('o200k_base counts ~13-14% below the recorded Gemini usage; one factor brings the mean error under 4%', async () => {
    expect(scenarios).toHaveLength(18);
    const { fit, counter } = await fitFor(scenarios, 'o200k_base');
    console.log(`[calibration] shared 18, o200k_base: ${fmt(fit)}`);
    expect(fit.samples).toBeGreaterThan(700);
    expect(fit.before.meanPctError).toBeGreaterThan(-16);
    expect(fit.before.meanPctError).toBeLessThan(-12);
    expect(fit.after.meanAbsPctError).toBeLessThanOrEqual(4);
    expect(Math.abs(fit.after.meanPctError)).toBeLessThan(1);
    expectAppliedMatches(scenarios, counter, fit);
  });

  it.each(ENCODINGS.filter((e) => storedFactor('gemini-3-pro-preview', e) !== undefined))('the stored %s factor is the one this data fits', async (encoding) => {
    const { fit, counter } = await fitFor(scenarios, encoding);
    console.log(`[calibration] shared 18, ${encoding}: ${fmt(fit)}`);
    expect(storedFactor('google/gemini-3-pro-preview', encoding)).toBeCloseTo(fit.factor, 3);
    expect(fit.after.meanAbsPctError).toBeLessThan(fit.before.meanAbsPctError / 2);
    // the stored (rounded) factor, applied, is as good as the exact fit
    const stored = pctErrors(scenarios.flatMap((s) => usageSamples(s, calibratedCounter(counter, s.model.name))));
    expect(stored.meanAbsPctError).toBeCloseTo(fit.after.meanAbsPctError, 1);
  });
});

describe('calibration on the 4 bundled mini-swe-agent scenarios', () => {
  const files = readdirSync(BUNDLED)
    .filter((f) => f.endsWith('.json'))
    .map((f) => path.join(BUNDLED, f));

  it('o200k_base counts ~14% below the recorded usage; one factor brings the mean error under 4%', async () => {
    expect(files).toHaveLength(4);
    const scenarios = await loadAll(files);
    const { fit, counter } = await fitFor(scenarios, 'o200k_base');
    console.log(`[calibration] bundled 4, o200k_base: ${fmt(fit)}`);
    expect(fit.before.meanPctError).toBeGreaterThan(-16);
    expect(fit.before.meanPctError).toBeLessThan(-12);
    expect(fit.after.meanAbsPctError).toBeLessThanOrEqual(4);
    expectAppliedMatches(scenarios, counter, fit);
    // the stored factor (fitted on all 18) also holds on this subset
    const stored = pctErrors(scenarios.flatMap((s) => usageSamples(s, calibratedCounter(counter, s.model.name))));
    console.log(`[calibration] bundled 4, stored factor ${storedFactor('gemini-3-pro-preview', 'o200k_base')}: after ${stored.meanPctError.toFixed(2)}% signed / ${stored.meanAbsPctError.toFixed(2)}% abs`);
    expect(stored.meanAbsPctError).toBeLessThanOrEqual(4);
  });
});
