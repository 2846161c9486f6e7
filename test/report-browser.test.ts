/**
 * Opens rendered reports in a real Chromium from file://, the way users open them: one built by the
 * CLI from the bundled suite plus a scenario made to inject script, one from hand-built runs whose
 * numbers the assertions know. Needs Chromium (Debian's, or CHROMIUM_PATH): without it these tests are
 * skipped with one line saying why, and fail under CI=true (.ci/run installs it; see helpers/browser.ts).
 * Screenshots go to test-results/ as artifacts.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { expect, it } from 'vitest';
import type { RunResult } from '../src/core/run-records.js';
import { renderReport } from '../src/report/render.js';
import { browserPlan, findChromium } from './helpers/browser.js';
import { bench, ROOT, tempDir } from './helpers/cli.js';
import { HOSTILE_SCENARIO_ID, HOSTILE_SCENARIO_TITLE, hostileScenario } from './helpers/hostile-scenario.js';
import { sampleRuns, sweepRuns } from './helpers/report-fixtures.js';

const PLAN = browserPlan(findChromium());
if (PLAN.kind === 'skip') console.warn(PLAN.reason);
/** A browser test: skipped without Chromium (the line above says why); under CI it runs, and fails. */
const browserIt = PLAN.kind === 'skip' ? it.skip : it;
const ARTIFACTS = join(import.meta.dirname, '..', 'test-results');

/** A page that records everything that would mean a broken or leaking report. */
async function withPage(run: (page: Page, problems: string[]) => Promise<void>): Promise<void> {
  // Launched inside the test, not in a hook, so a missing browser under CI reports the test as failed.
  if (PLAN.kind !== 'run') throw new Error(PLAN.reason);
  const browser: Browser = await chromium.launch({
    executablePath: PLAN.executablePath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems: string[] = [];
    page.on('console', (msg) => {
      if (msg.type() === 'error') problems.push(`console: ${msg.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('dialog', (dialog) => {
      problems.push(`dialog: ${dialog.message()}`);
      void dialog.dismiss();
    });
    page.on('request', (request) => {
      if (!/^(file|data):/.test(request.url())) problems.push(`request: ${request.url()}`);
    });
    await run(page, problems);
  } finally {
    await browser.close();
  }
}

/** The checks every page ends with: no injected script ran, nothing went wrong; then the screenshot artifact. */
async function finish(page: Page, problems: readonly string[], screenshot: string): Promise<void> {
  expect(await page.evaluate(() => (globalThis as { __pwned?: unknown }).__pwned)).toBeUndefined();
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, screenshot), fullPage: true });
  expect(problems).toEqual([]);
}

/** Painted pixels of a chart's canvas: uPlot draws on a transparent canvas, so an empty chart has none. */
const paintedPixels = (page: Page, selector: string): Promise<number[]> =>
  page.locator(selector).evaluateAll((canvases) =>
    canvases.map((element) => {
      // No DOM lib in the test's types: the canvas as far as this reads it.
      const canvas = element as unknown as { width: number; height: number; getContext(kind: '2d'): { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } } };
      const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
      let painted = 0;
      for (let i = 3; i < data.length; i += 4) if (data[i]! > 0) painted++;
      return painted;
    }),
  );

/** Opens a report and waits for its ready state: the curves on screen drawn, the first timeline shown. */
async function open(page: Page, file: string): Promise<void> {
  await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
  await page.waitForFunction("document.documentElement.dataset.ready === 'true'");
}

/** Scrolls every token curve into view, as a reader would: each is drawn when it nears the screen. */
async function drawAllCurves(page: Page): Promise<void> {
  const figures = page.locator('#curves figure.chart');
  for (let i = 0; i < (await figures.count()); i++) {
    await figures.nth(i).scrollIntoViewIfNeeded();
    await figures.nth(i).locator('.plot canvas').waitFor();
  }
  await page.evaluate('window.scrollTo(0, 0)');
}

/** The visible summary table's strategies, top to bottom. */
const summaryOrder = (page: Page): Promise<(string | null)[]> =>
  page.locator('.summary-group:not([hidden]) table.summary tbody th[scope="row"]').evaluateAll((cells) => cells.map((cell) => cell.getAttribute('data-sort')));

browserIt('renders the bundled suite: charts drawn, summary sorted, timelines open, the injection inert', async () => {
  const cwd = tempDir('ctxbench-report-browser-');
  try {
    const hostile = join(cwd, 'hostile.json');
    writeFileSync(hostile, JSON.stringify(hostileScenario()));
    const strategies = 'raw,masking,summarization,offload,progressive-removal';
    const run = bench(['run', '--scenario', join(ROOT, 'scenarios'), '--scenario', hostile, '-s', strategies, '--window', '32k', '--db', 'r.duckdb', '--no-report'], cwd);
    expect(run.code, run.stderr).toBe(0);
    const report = bench(['report', '--db', 'r.duckdb', '--baseline', join(ROOT, '.ci', 'baseline.json'), '-o', 'report.html'], cwd);
    expect(report.code, report.stderr).toBe(0);

    await withPage(async (page, problems) => {
      await open(page, join(cwd, 'report.html'));

      // Every chart drew something: 13 token curves (12 bundled + the injection) and the Pareto chart.
      expect(await page.locator('#curves figure.chart').count()).toBe(13);
      await drawAllCurves(page);
      const painted = await paintedPixels(page, 'figure.chart .plot canvas');
      expect(painted).toHaveLength(14);
      for (const n of painted) expect(n).toBeGreaterThan(1000);
      await expect.poll(() => page.locator('#recommendation .recommend strong').textContent()).toMatch(/\S/);

      // The summary sorts by a column, best first, and each scenario group has its own table.
      const visible = page.locator('.summary-group:not([hidden]) table.summary');
      const costHeader = visible.locator('thead th[data-col]', { has: page.getByRole('button', { name: 'Cost', exact: true }) });
      const costColumn = Number(await costHeader.getAttribute('data-col'));
      await costHeader.getByRole('button').click();
      const costs = await visible
        .locator('tbody tr')
        .evaluateAll((rows, col) => rows.map((row) => Number((row as unknown as { cells: { dataset: { sort: string } }[] }).cells[col]!.dataset.sort)), costColumn);
      expect(costs).toEqual([...costs].sort((a, b) => a - b));
      expect(await summaryOrder(page)).toHaveLength(5);
      await page.getByRole('button', { name: /^synthetic/ }).click();
      expect(await page.locator('.summary-group:not([hidden])').getAttribute('id')).toMatch(/^summary-group-/);
      expect(await summaryOrder(page)).toHaveLength(5);

      // The injection scenario's title is text on the page, exactly as written.
      const titles = await page.locator('#matrix .scenario-title').allTextContents();
      expect(titles).toContain(HOSTILE_SCENARIO_TITLE);

      // A matrix cell opens that run's timeline: every step, what the strategy did, the summary's text.
      const row = page.locator('#matrix tbody tr', { has: page.locator('.id', { hasText: HOSTILE_SCENARIO_ID }) });
      const column = (await page.locator('#matrix thead th').allTextContents()).findIndex((t) => t.trim() === 'summarization');
      await row.locator('td').nth(column - 1).locator('a.status').click();
      const body = page.locator('#timeline-body');
      await expect.poll(() => body.locator('.timeline-head').textContent()).toContain('summarization on Injection');
      expect(await body.locator('tbody tr').count()).toBeGreaterThanOrEqual(24);
      const summary = body.locator('details.text').first();
      await summary.locator('summary').click();
      expect(await summary.locator('pre').textContent()).toContain('</script><script>window.__pwned=');
      expect(await body.locator('.probe').first().textContent()).toContain('</script><script>window.__pwned=9</script>');
      expect(page.url()).toMatch(/#run-\d+$/);

      // The baseline diff is there, with its verdict.
      expect(await page.locator('#baseline .verdict').textContent()).toMatch(/\d+ regressions?, \d+ improvements?/);

      await finish(page, problems, 'report.png');
    });
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
});

browserIt('shows what each strategy did at a hovered step, and sorts from the mouse and the keyboard', async () => {
  const dir = tempDir('ctxbench-report-browser-');
  try {
    const file = join(dir, 'report.html');
    writeFileSync(file, renderReport(sampleRuns(), { generatedAt: new Date('2025-01-02T03:04:05Z'), version: '0.1.0' }));
    await withPage(async (page, problems) => {
      await open(page, file);
      const charts = page.locator('#curves figure.chart');
      expect(await charts.count()).toBe(2);
      await drawAllCurves(page);

      // Hovering a step fills the panel under the chart with what each strategy did there.
      const overlay = charts.nth(1).locator('.u-over');
      const area = (await overlay.boundingBox())!;
      await overlay.hover({ position: { x: area.width * 0.66, y: area.height / 2 } });
      await expect.poll(() => charts.nth(1).locator('.step-info').textContent()).toMatch(/^Step 5.*masking: [\d,]+ tokens · session 2\s+restart: new session/s);
      // Masking is counted per step, not listed.
      const first = charts.nth(0).locator('.u-over');
      const firstArea = (await first.boundingBox())!;
      await first.hover({ position: { x: firstArea.width * 0.8, y: firstArea.height / 2 } });
      await expect.poll(() => charts.nth(0).locator('.step-info').textContent()).toMatch(/^Step 5.*masking: [\d,]+ tokens · session 1\s+masked: 1 tool output/s);
      await page.mouse.move(0, 0);

      await checkSorting(page);

      // The picker opens any run; the first shows by default.
      await expect.poll(() => page.locator('#timeline-body .timeline-head').textContent()).toContain('raw on Add login rate limiting');
      await page.locator('#timeline-run').selectOption('2');
      expect(await page.locator('#timeline-body .event .ids').textContent()).toBe('messages: m1, m2, m3');

      await finish(page, problems, 'report-fixture.png');
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** Clicking a summary header sorts by it, best first, then reversed; the headers work from the keyboard too. */
async function checkSorting(page: Page): Promise<void> {
  const table = page.locator('table.summary');
  const sortedBy = (): Promise<(string | null)[]> =>
    table.locator('thead th[aria-sort]').evaluateAll((cells) => cells.map((cell) => `${cell.textContent?.trim()} ${cell.getAttribute('aria-sort')}`));
  expect(await summaryOrder(page)).toEqual(['raw', 'masking', 'codex (summarization)']);
  expect(await sortedBy()).toEqual([]);

  // Most probes passed first (codex 4/4; raw and masking tie at 3/4 and keep their order), then the reverse.
  const probes = table.getByRole('button', { name: 'Probes passed' });
  await probes.click();
  expect(await summaryOrder(page)).toEqual(['codex (summarization)', 'raw', 'masking']);
  expect(await sortedBy()).toEqual(['Probes passed descending']);
  await probes.click();
  expect(await summaryOrder(page)).toEqual(['raw', 'masking', 'codex (summarization)']);
  expect(await sortedBy()).toEqual(['Probes passed ascending']);

  // Numbers sort as numbers: 10,850 overhead tokens after 0, though "10850" < "9" as text.
  await table.getByRole('button', { name: 'Overhead' }).click();
  expect(await summaryOrder(page)).toEqual(['raw', 'masking', 'codex (summarization)']);

  // From the keyboard: Tab onto a header's button and press Enter / Space.
  const mean = table.getByRole('button', { name: 'Mean', exact: true });
  await mean.focus();
  await page.keyboard.press('Enter');
  expect(await summaryOrder(page)).toEqual(['codex (summarization)', 'masking', 'raw']);
  await page.keyboard.press('Space');
  expect(await summaryOrder(page)).toEqual(['raw', 'masking', 'codex (summarization)']);
  expect(await sortedBy()).toEqual(['Mean descending']);
  expect(await page.locator('#sort-status').textContent()).toBe('Sorted by Mean, descending.');

  // An unknown cost ("-") sorts last whichever way.
  const cost = table.getByRole('button', { name: 'Cost' });
  await cost.click();
  expect(await summaryOrder(page)).toEqual(['raw', 'masking', 'codex (summarization)']);
  await cost.click();
  expect(await summaryOrder(page)).toEqual(['masking', 'raw', 'codex (summarization)']);

  // Text sorts alphabetically; leave the page sorted by strategy for the screenshot.
  await table.getByRole('button', { name: 'Strategy' }).click();
  expect(await summaryOrder(page)).toEqual(['codex (summarization)', 'masking', 'raw']);
}

/** 15 configurations (as `-s all` gives) on three scenarios in two groups, thresholds 1% of the window apart. */
function fifteenStrategies(): RunResult[] {
  const base = sampleRuns()[1]!; // masking on the first scenario: completed, with a threshold
  const scenarios = [
    { scenarioId: 'alpha-1', scenarioFile: 'suites/recorded/alpha-1.json', outcome: 'resolved' },
    { scenarioId: 'beta-2', scenarioFile: 'suites/recorded/beta-2.json', outcome: 'unresolved' },
    { scenarioId: 'gamma-3', scenarioFile: 'suites/synthetic/gamma-3.json', outcome: 'resolved' },
  ];
  return scenarios.flatMap((scenario) =>
    Array.from({ length: 15 }, (_, i) => ({
      ...base,
      runId: `${scenario.scenarioId}-${i}`,
      steps: base.steps.map((s) => ({ ...s, promptTokens: s.promptTokens + 60 * i })),
      config: {
        ...base.config,
        ...scenario,
        scenarioTitle: `Task ${scenario.scenarioId}`,
        strategy: `strategy-${i + 1}`,
        baseStrategy: `strategy-${i + 1}`,
        thresholds: [{ label: 'compact_at', fraction: 0.55 + 0.01 * i }],
      },
    })),
  );
}

browserIt('at 15 strategies: distinct series styles everywhere, no threshold label over another or the edge, a scenario filter', async () => {
  const dir = tempDir('ctxbench-report-browser-');
  try {
    const file = join(dir, 'report.html');
    writeFileSync(file, renderReport(fifteenStrategies(), { generatedAt: new Date('2025-01-02T03:04:05Z'), version: '0.1.0' }));
    await withPage(async (page, problems) => {
      await open(page, file);
      await drawAllCurves(page);

      // Every configuration's key (colour and dash) is its own, and the same in each table.
      const keysOf = (rows: string): Promise<string[]> =>
        page.locator(rows).evaluateAll((cells) =>
          cells.map((cell) => {
            const line = cell.querySelector('svg.key line')!;
            return `${cell.textContent!.trim()}|${line.getAttribute('stroke')}|${line.getAttribute('stroke-dasharray')}`;
          }),
        );
      const matrixKeys = await keysOf('#matrix thead th:not(:first-child)');
      expect(matrixKeys).toHaveLength(15);
      expect(new Set(matrixKeys.map((k) => k.split('|').slice(1).join('|'))).size).toBe(15);
      expect(new Set(matrixKeys.map((k) => k.split('|')[1])).size).toBe(15);
      expect((await keysOf('.summary-group:not([hidden]) table.summary tbody th[scope="row"]')).sort()).toEqual([...matrixKeys].sort());
      // The charts' legends draw the same keys, colour and dash, per configuration.
      const legend = await page
        .locator('#curves figure.chart')
        .first()
        .locator('.u-legend .u-series')
        .evaluateAll((rows) =>
          rows.flatMap((row) => {
            const line = row.querySelector('svg.key line');
            return line ? [`${row.querySelector('.u-label')!.textContent}|${line.getAttribute('stroke')}|${line.getAttribute('stroke-dasharray')}`] : [];
          }),
        );
      expect(legend).toEqual(matrixKeys);

      // Threshold labels: each inside its plot, none over another; those without room named under the chart.
      const charts = page.locator('#curves figure.chart');
      for (let c = 0; c < (await charts.count()); c++) {
        const chart = charts.nth(c);
        const plot = (await chart.locator('.u-over').boundingBox())!;
        const boxes = await chart.locator('.line-label').evaluateAll((labels) =>
          labels.map((label) => {
            const r = label.getBoundingClientRect();
            return { x0: r.left, y0: r.top, x1: r.right, y1: r.bottom, text: label.textContent! };
          }),
        );
        expect(boxes.length).toBeGreaterThan(1);
        const offset = await page.evaluate<{ x: number; y: number }>('({ x: window.scrollX, y: window.scrollY })');
        for (const b of boxes) {
          expect(b.x0 + offset.x).toBeGreaterThanOrEqual(plot.x - 0.5);
          expect(b.x1 + offset.x).toBeLessThanOrEqual(plot.x + plot.width + 0.5);
          expect(b.y0 + offset.y).toBeGreaterThanOrEqual(plot.y - 0.5);
          expect(b.y1 + offset.y).toBeLessThanOrEqual(plot.y + plot.height + 0.5);
        }
        for (const [i, a] of boxes.entries())
          for (const b of boxes.slice(i + 1)) expect(a.x1 <= b.x0 || b.x1 <= a.x0 || a.y1 <= b.y0 || b.y1 <= a.y0, `${a.text} over ${b.text}`).toBe(true);
        const note = (await chart.locator('.offscale').allTextContents()).join(' ');
        // The window and 15 thresholds: every one either labelled on the plot or named under it.
        expect(boxes.length + (note.match(/compact_at/g) ?? []).length).toBe(16);
      }

      // The filter: by id, by group, by a run that did not complete; matrix rows and curves alike.
      const shownRows = (): Promise<string[]> => page.locator('#matrix tbody tr:not([hidden]) .scenario-title').allTextContents();
      const shownCurves = (): Promise<number> => page.locator('#curves details.curve:not([hidden])').count();
      await page.getByRole('searchbox').fill('beta');
      expect(await shownRows()).toEqual(['Task beta-2']);
      expect(await shownCurves()).toBe(1);
      expect(await page.locator('form.scenario-filter output').textContent()).toBe('1 of 3 shown');
      await page.getByRole('searchbox').fill('');
      await page.locator('form.scenario-filter').getByLabel('group').selectOption('synthetic');
      expect(await shownRows()).toEqual(['Task gamma-3']);
      await page.locator('form.scenario-filter').getByLabel('group').selectOption('');
      await page.getByLabel('recorded outcome').selectOption('resolved');
      expect(await shownRows()).toEqual(['Task alpha-1', 'Task gamma-3']);
      expect(await shownCurves()).toBe(2);
      await page.getByLabel('a run did not complete').check();
      expect(await shownRows()).toEqual([]);

      await finish(page, problems, 'report-15-strategies.png');
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

browserIt('a two-parameter sweep: a success chart per swept parameter, a point per setting, the recommended one named', async () => {
  const dir = tempDir('ctxbench-report-browser-');
  try {
    const file = join(dir, 'report.html');
    // softThreshold 0.5, 0.6, 0.7 x carryoverTurns 3, 10: six settings, two lines of three and three of two.
    const runs = sweepRuns(
      [0.5, 0.6, 0.7].flatMap((softThreshold, i) => [3, 10].map((carryoverTurns, j) => [{ softThreshold, carryoverTurns }, 1 + i + j] as const)),
    );
    writeFileSync(file, renderReport(runs, { generatedAt: new Date('2025-01-02T03:04:05Z'), version: '0.1.0' }));
    await withPage(async (page, problems) => {
      await open(page, file);
      const charts = page.locator('#pareto figure.sweep-chart');
      expect(await charts.count()).toBe(2);
      expect(await charts.locator('figcaption').allTextContents()).toEqual([
        expect.stringMatching(/^masking: success .* against softThreshold; a line per setting of carryoverTurns \(not their mean\)\..*carryoverTurns=3.*carryoverTurns=10$/),
        expect.stringMatching(/against carryoverTurns; a line per setting of softThreshold .*softThreshold=0\.5.*softThreshold=0\.6.*softThreshold=0\.7$/),
      ]);
      for (let c = 0; c < 2; c++) {
        const chart = charts.nth(c);
        expect(await chart.locator('table tbody tr').count()).toBe(6);
        expect((await paintedPixels(page, `#sweep-${c} canvas`))[0]).toBeGreaterThan(0);
      }
      // Hovering the best setting (softThreshold 0.7, carryoverTurns 10: all 4 probes) names it as recommended.
      const over = (await charts.first().locator('.u-over').boundingBox())!;
      // Axes padded by 8% of the spread: x 0.484 to 0.716, y 19% to 100% (successes 25% to 100%).
      await charts.first().locator('.u-over').hover({ position: { x: (over.width * (0.7 - 0.484)) / 0.232, y: 1 } });
      expect(await charts.first().locator('.step-info').textContent()).toBe('masking (softThreshold=0.7, carryoverTurns=10): success 100.0%, recommended');
      await finish(page, problems, 'report-sweep.png');
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/**
 * Every chart's numeric axis labels, per axis. uPlot draws them on its canvas, so `recordCanvasText`
 * records fillText before the page's scripts run; an axis is the labels sharing a baseline (x) or an x (y).
 * Strings, not functions: the tests' types have no DOM.
 */
const recordCanvasText = async (page: Page): Promise<void> => {
  await page.addInitScript(`{
    const proto = CanvasRenderingContext2D.prototype;
    const fillText = proto.fillText;
    proto.fillText = function (t, x, y) { (this.canvas.texts ??= []).push({ t: String(t), x, y }); return fillText.apply(this, arguments); };
  }`);
};

const axisLabels = (page: Page): Promise<string[][]> =>
  page.evaluate<string[][]>(`[...document.querySelectorAll('canvas')].flatMap((canvas) => {
    const ticks = (canvas.texts ?? []).filter((d) => /^-?\\$?[\\d,.]+[kM%]?$/.test(d.t));
    const groups = (key) => {
      const byKey = new Map();
      for (const d of ticks) byKey.set(key(d), [...new Set([...(byKey.get(key(d)) ?? []), d.t])]);
      return [...byKey.values()].filter((g) => g.length > 1);
    };
    return [...groups((d) => Math.round(d.y)), ...groups((d) => Math.round(d.x))];
  })`);

/** An axis label's value: "$2.475" 2.475, "2.5k" 2500, "92.5%" 92.5. */
const labelValue = (label: string): number => {
  const unit = label.endsWith('k') ? 1e3 : label.endsWith('M') ? 1e6 : 1;
  return Number(label.replace(/[$,%kM]/g, '')) * unit;
};

browserIt('axis labels state their ticks: evenly spaced values (7.5, $2.475, 2.5k, 92.5%), whole numbers on a whole-number parameter', async () => {
  const dir = tempDir('ctxbench-report-browser-');
  try {
    const file = join(dir, 'report.html');
    // keep 5 to 20 passing 33 to 40 of 40 probes for $2.40 to $2.67: ticks 2.5 or 0.025 apart on every axis.
    const runs = sweepRuns([5, 10, 20, 15].map((keep) => [{ keep }, 0] as const)).map((run, i) => ({
      ...run,
      steps: run.steps.map((s) => ({ ...s, promptTokens: s.promptTokens * 4 })),
      summary: { ...run.summary, costUsd: 2.4 + 0.09 * i, probes: { total: 40, verbatim: [33, 35, 38, 40][i]!, summary: 0, recoverable: 0, lost: [7, 5, 2, 0][i]! } },
    }));
    writeFileSync(file, renderReport(runs, { generatedAt: new Date('2025-01-02T03:04:05Z'), version: '0.1.0' }));
    await withPage(async (page, problems) => {
      await recordCanvasText(page);
      for (const width of [1280, 900, 700]) {
        await page.setViewportSize({ width, height: 900 });
        await open(page, file);
        await drawAllCurves(page);
        const axes = await axisLabels(page);
        expect(axes.length).toBe(6); // Pareto, sweep and the curve: x and y each
        for (const axis of axes) {
          const values = axis.map(labelValue);
          const steps = values.slice(1).map((v, i) => v - values[i]!);
          for (const step of steps) expect(step, axis.join(' ')).toBeCloseTo(steps[0]!, 9);
        }
        const keep = await page.locator('#sweep-0 canvas').evaluate((c) => (c as unknown as { texts: { t: string }[] }).texts.map((d) => d.t));
        expect(keep.filter((t) => /^[\d.]+$/.test(t)).every((t) => Number.isInteger(Number(t))), keep.join(' ')).toBe(true);
      }
      await finish(page, problems, 'report-ticks.png');
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

browserIt('the Pareto hover gives cents at any cost, and every configuration at a point several share', async () => {
  const dir = tempDir('ctxbench-report-browser-');
  try {
    const file = join(dir, 'report.html');
    // keep=4 and keep=5 cost the same and pass the same probes: one point, two configurations.
    const settings = [[13.53, 2], [13.66, 3], [13.73, 4], [13.73, 4]] as const;
    const runs = sweepRuns(settings.map(([, passed], i) => [{ keep: i + 2 }, passed] as const)).map((run, i) => ({ ...run, summary: { ...run.summary, costUsd: settings[i]![0] } }));
    writeFileSync(file, renderReport(runs, { generatedAt: new Date('2025-01-02T03:04:05Z'), version: '0.1.0' }));
    await withPage(async (page, problems) => {
      await open(page, file);
      const chart = page.locator('#pareto-chart');
      const over = chart.locator('.u-over');
      const box = (await over.boundingBox())!;
      // Axes padded by 8% of the spread: cost 13.514 to 13.746, success 46% to 100%.
      const at = (cost: number, success: number) => ({ x: (box.width * (cost - 13.514)) / 0.232, y: Math.max(1, (box.height * (1 - success)) / 0.54) });
      await over.hover({ position: at(13.53, 0.5) });
      expect(await chart.locator('.step-info').textContent()).toBe('masking (keep=2): $13.53, success 50.0% (on the front)');
      await over.hover({ position: at(13.73, 1) });
      expect(await chart.locator('.step-info div').allTextContents()).toEqual([
        'masking (keep=4): $13.73, success 100.0% (on the front), recommended',
        'masking (keep=5): $13.73, success 100.0% (on the front)',
      ]);
      await finish(page, problems, 'report-pareto-hover.png');
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

browserIt('success axes stay within 0% and 100%, one run or many', async () => {
  const dir = tempDir('ctxbench-report-browser-');
  try {
    const file = join(dir, 'report.html');
    writeFileSync(file, renderReport([sampleRuns()[0]!], { generatedAt: new Date('2025-01-02T03:04:05Z'), version: '0.1.0' }));
    await withPage(async (page, problems) => {
      await recordCanvasText(page);
      await open(page, file);
      const success = (await axisLabels(page)).filter((axis) => axis.every((label) => label.endsWith('%')));
      expect(success).toHaveLength(1);
      const values = success[0]!.map(labelValue);
      expect(Math.max(...values), success[0]!.join(' ')).toBeLessThanOrEqual(100);
      expect(Math.min(...values)).toBeGreaterThanOrEqual(0);
      await finish(page, problems, 'report-one-run.png');
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
