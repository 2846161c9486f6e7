/**
 * The kinds of file an output may replace (src/core/output-file.ts) are told apart by their first
 * bytes: every output ctxbench writes is recognized as its own kind and as no other, and so are the
 * bundled scenarios, a results database and files of other tools.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify as toYaml } from 'yaml';
import { HEAD_BYTES, type FileKind } from '../src/core/output-file.js';
import { BASELINE_FILE, buildBaseline, metricsByKey, serializeBaseline } from '../src/gate/baseline.js';
import { compareRuns, gateVerdict } from '../src/gate/compare.js';
import { BENCHMARK_JSON, benchmarkJson, formatMarkdown, MARKDOWN_SUMMARY } from '../src/gate/output.js';
import { REPORT_CSV, REPORT_JSON, reportCsv, reportJson, reportMarkdown } from '../src/report/exports.js';
import { HTML_REPORT, renderReport } from '../src/report/render.js';
import { generateScenario } from '../src/scenarios/generate/index.js';
import { SCENARIO_FILE } from '../src/scenarios/schema.js';
import { exportParquet, PARQUET_FILE } from '../src/store/export.js';
import { ResultStore } from '../src/store/result-store.js';
import { ROOT } from './helpers/cli.js';
import { sampleRuns } from './helpers/report-fixtures.js';

const KINDS: Readonly<Record<string, FileKind>> = { HTML_REPORT, REPORT_JSON, REPORT_CSV, MARKDOWN_SUMMARY, BASELINE_FILE, BENCHMARK_JSON, SCENARIO_FILE, PARQUET_FILE };

/** Each sample's content and the kind it is (none: a file no output may replace). */
const samples: { name: string; kind: keyof typeof KINDS | null; content: Buffer }[] = [];
const add = (name: string, kind: keyof typeof KINDS | null, content: string | Buffer): void => {
  samples.push({ name, kind, content: Buffer.from(content).subarray(0, HEAD_BYTES) });
};

let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'ctxbench-kinds-'));
  const runs = sampleRuns();
  const meta = { generatedAt: new Date('2025-01-02T03:04:05Z'), version: '0.1.0', database: 'r.duckdb' };
  const baseline = buildBaseline(runs, { version: '0.1.0', command: 'bench run' }, meta.generatedAt, 'r.duckdb');
  const candidate = metricsByKey(runs, 'r.duckdb');
  add('HTML report', 'HTML_REPORT', renderReport(runs, meta));
  add('JSON report', 'REPORT_JSON', reportJson(runs, meta));
  add('CSV report', 'REPORT_CSV', reportCsv(runs));
  add('report markdown', 'MARKDOWN_SUMMARY', reportMarkdown(runs, meta));
  const comparison = compareRuns(baseline.runs, candidate);
  add('check markdown', 'MARKDOWN_SUMMARY', formatMarkdown(comparison, baseline.runs, candidate, { verdict: gateVerdict(comparison), update: 'bench baseline' }));
  add('baseline', 'BASELINE_FILE', serializeBaseline(baseline));
  add('benchmark JSON', 'BENCHMARK_JSON', `${JSON.stringify(benchmarkJson(candidate), null, 2)}\n`);
  add('benchmark JSON of no runs', 'BENCHMARK_JSON', `${JSON.stringify([], null, 2)}\n`);
  const scenario = generateScenario({ steps: 20 });
  add('generated scenario (JSON)', 'SCENARIO_FILE', `${JSON.stringify(scenario, null, 1)}\n`);
  add('generated scenario (YAML)', 'SCENARIO_FILE', toYaml(scenario, { lineWidth: 0 }));
  add('scenarios (JSONL)', 'SCENARIO_FILE', `${JSON.stringify(scenario)}\n${JSON.stringify(scenario)}\n`);
  add('bundled scenario', 'SCENARIO_FILE', readFileSync(path.join(ROOT, 'scenarios/openhands-codeact-sonnet35/django__django-10880.json')));

  const db = path.join(dir, 'r.duckdb');
  const store = await ResultStore.open(db);
  try {
    await exportParquet(store, path.join(dir, 'parquet'), undefined);
  } finally {
    await store.close();
  }
  add('Parquet export', 'PARQUET_FILE', readFileSync(path.join(dir, 'parquet', 'runs.parquet')));
  add('results database', null, readFileSync(db));
  add('OpenAI chat trajectory', null, readFileSync(path.join(ROOT, 'fixtures/trajectories/openai-chat/chat.json')));
  add('README', null, readFileSync(path.join(ROOT, 'README.md')));
  add('package.json', null, readFileSync(path.join(ROOT, 'package.json')));
  add('another HTML page', null, '<!doctype html>\n<html><head><title>notes</title></head><body>ctxbench</body></html>\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('file kinds', () => {
  it('recognize every output as its own kind and as no other', () => {
    for (const { name, kind, content } of samples) {
      const matching = Object.entries(KINDS).filter(([, k]) => k.matches(content)).map(([key]) => key);
      expect(matching, name).toEqual(kind === null ? [] : [kind]);
    }
  });
});
