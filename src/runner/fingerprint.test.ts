import { describe, expect, it } from 'vitest';
import { parseScenario } from '../scenarios/scenario.js';
import { select } from '../strategies/index.js';
import { defaultParams } from '../core/params.js';
import { sweScenarioMessages } from '../../test/helpers/history.js';
import { matrixFingerprint, sharedBatchId, type MatrixDefinition } from './fingerprint.js';

const loaded = (id: string, file: string, steps = 3) => ({
  scenario: parseScenario({ ctxbench: 1, id, model: { name: 'gpt-4o' }, messages: sweScenarioMessages(steps, 80) }, file),
  format: 'ctxbench',
});
const entries = (names: string, presets: string[] = []) =>
  select([names], presets).map((s) => ({ strategy: s.strategy, preset: s.preset?.name, params: { ...defaultParams(s.strategy.params), ...s.preset?.params } }));
const base: MatrixDefinition = {
  scenarios: [loaded('a', 'scenarios/a.json'), loaded('b', 'scenarios/b.json')],
  entries: entries('raw,masking'),
  settings: { window: 32768, model: 'mock', backendOptions: { recall: 0.8, seed: 1 }, encoding: 'o200k_base', calibrate: true },
};

describe('matrixFingerprint', () => {
  it('is the same on every machine: file paths and load order do not count', () => {
    const elsewhere: MatrixDefinition = {
      ...base,
      scenarios: [loaded('b', '/home/ci/work/b.json'), loaded('a', 'C:/x/a.json')],
      entries: [...base.entries].reverse(),
      settings: { calibrate: true, encoding: 'o200k_base', backendOptions: { seed: 1, recall: 0.8 }, model: 'mock', window: 32768 },
    };
    expect(matrixFingerprint(elsewhere)).toBe(matrixFingerprint(base));
    expect(matrixFingerprint(base)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('changes with anything that changes results', () => {
    const fp = matrixFingerprint(base);
    const variants: MatrixDefinition[] = [
      { ...base, scenarios: [loaded('a', 'scenarios/a.json', 4), loaded('b', 'scenarios/b.json')] }, // content
      { ...base, scenarios: [loaded('a', 'scenarios/a.json')] }, // one scenario fewer
      { ...base, scenarios: [{ ...base.scenarios[0]!, format: 'mini-swe-agent' }, base.scenarios[1]!] }, // imported from elsewhere
      { ...base, entries: entries('raw') },
      { ...base, entries: entries('raw,masking', ['goose']) },
      { ...base, entries: base.entries.map((e) => (e.strategy.name === 'masking' ? { ...e, params: { ...e.params, softThreshold: 0.6 } } : e)) },
      // an outside strategy's file, then the same file edited
      ...['0123456789ab', 'ba9876543210'].map((digest) => ({ ...base, entries: base.entries.map((e) => (e.strategy.name === 'masking' ? { ...e, file: { path: '/x/mine.ts', given: './mine.ts', digest } } : e)) })),
      { ...base, settings: { ...base.settings, window: 16384 } },
      { ...base, settings: { ...base.settings, backendOptions: { recall: 0.5, seed: 1 } } },
      { ...base, settings: { ...base.settings, calibrate: false } },
    ];
    const prints = variants.map(matrixFingerprint);
    expect(prints).not.toContain(fp);
    expect(new Set(prints).size).toBe(prints.length);
  });

  it('gives shards a common batch id', () => {
    expect(sharedBatchId(matrixFingerprint(base))).toBe(`matrix-${matrixFingerprint(base).slice(0, 16)}`);
  });
});
