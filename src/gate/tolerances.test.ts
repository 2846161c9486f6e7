import { describe, expect, it } from 'vitest';
import { DEFAULT_TOLERANCES, toleranceText, type NumericMetric, type Tolerances } from '../metrics/run-metrics.js';
import { parseToleranceFile, tolerancesFor, unmatchedStrategies } from './tolerances.js';

const YAML = `
defaults:
  inputTokens: rel:5%
  peakContextPct: abs:0.05
strategies:
  summarization:
    outputTokens: rel:10%
  "jetbrains-*":
    inputTokens: rel:3%
  jetbrains-masking:
    inputTokens: rel:1%
`;

const shown = (t: Tolerances, ...metrics: NumericMetric[]): string[] => metrics.map((m) => `${m} ${toleranceText(t[m])}`);

describe('tolerance file', () => {
  const file = parseToleranceFile(YAML, 'ctxbench.tolerances.yaml');

  it('reads per-metric defaults and per-strategy overrides', () => {
    expect(file.defaults).toEqual({ inputTokens: { kind: 'rel', value: 0.05 }, peakContextPct: { kind: 'abs', value: 0.05 } });
    expect(file.strategies.map((s) => s.pattern)).toEqual(['summarization', 'jetbrains-*', 'jetbrains-masking']);
  });

  it('layers the built-in defaults, the file’s defaults, matching strategies in file order, then the flags', () => {
    const of = tolerancesFor(file);
    expect(shown(of('masking'), 'inputTokens', 'outputTokens', 'peakContextPct', 'steps')).toEqual([
      'inputTokens rel:5%', 'outputTokens rel:2%', 'peakContextPct abs:0.05', 'steps abs:0',
    ]);
    expect(shown(of('summarization'), 'inputTokens', 'outputTokens')).toEqual(['inputTokens rel:5%', 'outputTokens rel:10%']);
    expect(shown(of('jetbrains-summarization'), 'inputTokens')).toEqual(['inputTokens rel:3%']);
    expect(shown(of('jetbrains-masking'), 'inputTokens')).toEqual(['inputTokens rel:1%']); // the later entry wins
    expect(shown(of('summarization[softThreshold=0.6]'), 'outputTokens')).toEqual(['outputTokens rel:2%']); // a sweep's label is its own
    const flagged = tolerancesFor(file, ['inputTokens=rel:20%']);
    expect(shown(flagged('jetbrains-masking'), 'inputTokens', 'peakContextPct')).toEqual(['inputTokens rel:20%', 'peakContextPct abs:0.05']);
    expect(tolerancesFor(undefined)('raw')).toEqual(DEFAULT_TOLERANCES);
  });

  it('names the strategy entries that match no run', () => {
    expect(unmatchedStrategies(file, ['masking', 'summarization', 'jetbrains-masking'])).toEqual([]);
    expect(unmatchedStrategies(file, ['masking', 'raw'])).toEqual(['summarization', 'jetbrains-*', 'jetbrains-masking']);
    expect(unmatchedStrategies(parseToleranceFile('strategies:\n  maskng:\n    inputTokens: rel:1%', 't.yaml'), ['masking'])).toEqual(['maskng']);
  });

  it('reads JSON by a .json name, and an empty file as no tolerances', () => {
    const json = parseToleranceFile(JSON.stringify({ strategies: { 'raw': { costUsd: 'rel:0.1' } } }), 't.json');
    expect(json).toEqual({ defaults: {}, strategies: [{ pattern: 'raw', tolerances: { costUsd: { kind: 'rel', value: 0.1 } } }] });
    expect(parseToleranceFile('', 't.yaml')).toEqual({ defaults: {}, strategies: [] });
    expect(parseToleranceFile(`\uFEFF${YAML}`, 'ctxbench.tolerances.yaml')).toEqual(file); // saved with a byte order mark
  });

  it('rejects a malformed file with one line naming the file and field', () => {
    const bad = (text: string, file = 't.yaml') => () => parseToleranceFile(text, file);
    expect(bad('defaults: [')).toThrow(/^t\.yaml: not valid YAML \(/);
    expect(bad('{', 't.json')).toThrow(/^t\.json: not valid JSON \(/);
    expect(bad('default:\n  inputTokens: rel:5%')).toThrow('t.yaml: unknown key default (known: defaults, strategies)');
    expect(bad('defaults:\n  inputTokns: rel:5%')).toThrow(/^t\.yaml: defaults: unknown metric inputTokns \(known: steps, inputTokens, .*costUsd\)$/);
    expect(bad('strategies:\n  masking:\n    cachedInputTokens: rel:5%')).toThrow(/^t\.yaml: strategies\.masking: unknown metric cachedInputTokens \(known: .*cachedShare/);
    expect(bad('defaults:\n  inputTokens: 5%')).toThrow('t.yaml: defaults.inputTokens: expected abs:X or rel:Y, e.g. rel:5% or abs:0.05 (got "5%")');
    expect(bad('defaults:\n  steps: abs:1%')).toThrow(/^t\.yaml: defaults\.steps: expected a plain number for abs:/);
    expect(bad('strategies:\n  raw:\n    steps: abs:-1')).toThrow(/^t\.yaml: strategies\.raw\.steps: expected a tolerance of at least 0/);
    expect(bad('defaults:\n  steps: 3')).toThrow(/^t\.yaml: defaults\.steps: /);
    // Slips of units: 15 meant as 15%, 5 points meant as 0.05.
    expect(bad('defaults:\n  inputTokens: rel:15')).toThrow('t.yaml: defaults.inputTokens: expected a fraction for rel: without % (rel:15 is 1500%; write rel:15% for 15 percent) (got "rel:15")');
    expect(bad('defaults:\n  peakContextPct: abs:5')).toThrow('t.yaml: defaults.peakContextPct: expected at most abs:1 on peakContextPct, a fraction (abs:0.05 is 5 points) (got "abs:5")');
    expect(parseToleranceFile('defaults:\n  inputTokens: rel:1500%\n  steps: abs:5', 't.yaml').defaults).toEqual({ inputTokens: { kind: 'rel', value: 15 }, steps: { kind: 'abs', value: 5 } });
    expect(bad('- 1')).toThrow(/^t\.yaml: \(top level\): /);
  });
});
