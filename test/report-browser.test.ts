/**
 * Opens a rendered report in a real Chromium from file://, the way users open it. Needs Debian's
 * chromium at /usr/bin/chromium; without it this test fails on purpose (CI installs it).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { sampleRuns } from './helpers/report-fixtures.js';
import { renderReport, writeReport } from '../src/report/render.js';

const CHROMIUM = '/usr/bin/chromium';
const SCREENSHOT = join(import.meta.dirname, '..', 'test-results', 'report.png');

// Launched inside the test, not in a hook, so a missing browser reports this test as failed, not skipped.
it('renders every chart offline and sorts the summary, without errors or injected scripts running', async () => {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  const dir = mkdtempSync(join(tmpdir(), 'ctxbench-report-browser-'));
  try {
    const file = join(dir, 'report.html');
    await writeReport(file, renderReport(sampleRuns(), { generatedAt: new Date('2025-01-02T03:04:05Z'), version: '0.1.0' }));
    await checkReport(await browser.newPage({ viewport: { width: 1280, height: 900 } }), pathToFileURL(file).href);
  } finally {
    await browser.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

async function checkReport(page: Page, url: string): Promise<void> {
  const problems: string[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(`console: ${msg.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('request', (request) => {
    if (!/^(file|data):/.test(request.url())) problems.push(`request: ${request.url()}`);
  });

  await page.goto(url, { waitUntil: 'load' });

  const charts = page.locator('figure.chart');
  expect(await charts.count()).toBe(2);
  for (const chart of await charts.all()) {
    const box = await chart.locator('.plot canvas').boundingBox();
    expect(box?.width).toBeGreaterThan(100);
    expect(box?.height).toBeGreaterThan(100);
  }
  expect(await page.evaluate(() => (globalThis as { __pwned?: unknown }).__pwned)).toBeUndefined();

  // Hovering a step fills the panel under the chart with what each strategy did there.
  const overlay = charts.nth(1).locator('.u-over');
  const area = (await overlay.boundingBox())!;
  await overlay.hover({ position: { x: area.width * 0.66, y: area.height / 2 } });
  await expect.poll(() => charts.nth(1).locator('.step-info').textContent()).toMatch(/^Step 5.*masking.*restart: new session/s);
  // Masking is counted per step, not listed.
  const first = charts.nth(0).locator('.u-over');
  const firstArea = (await first.boundingBox())!;
  await first.hover({ position: { x: firstArea.width * 0.8, y: firstArea.height / 2 } });
  await expect.poll(() => charts.nth(0).locator('.step-info').textContent()).toMatch(/^Step 5.*masking: [\d,]+ tokens · session 1\s+masked: 1 tool output/s);
  await page.mouse.move(0, 0);

  await checkSorting(page);

  mkdirSync(join(SCREENSHOT, '..'), { recursive: true });
  await page.screenshot({ path: SCREENSHOT, fullPage: true });
  expect(problems).toEqual([]);
}

/** Clicking a summary header sorts by it, best first, then reversed; the headers work from the keyboard too. */
async function checkSorting(page: Page): Promise<void> {
  const table = page.locator('table.summary');
  const order = (): Promise<(string | null)[]> =>
    table.locator('tbody th[scope="row"]').evaluateAll((cells) => cells.map((cell) => cell.getAttribute('data-sort')));
  const sortedBy = (): Promise<(string | null)[]> =>
    table.locator('thead th[aria-sort]').evaluateAll((cells) => cells.map((cell) => `${cell.textContent?.trim()} ${cell.getAttribute('aria-sort')}`));
  expect(await order()).toEqual(['raw', 'masking', 'codex (summarization)']);
  expect(await sortedBy()).toEqual([]);

  // Most probes passed first (codex 4/4; raw and masking tie at 3/4 and keep their order), then the reverse.
  const probes = table.getByRole('button', { name: 'Probes passed' });
  await probes.click();
  expect(await order()).toEqual(['codex (summarization)', 'raw', 'masking']);
  expect(await sortedBy()).toEqual(['Probes passed descending']);
  await probes.click();
  expect(await order()).toEqual(['raw', 'masking', 'codex (summarization)']);
  expect(await sortedBy()).toEqual(['Probes passed ascending']);

  // Numbers sort as numbers: 10,850 overhead tokens after 0, though "10850" < "9" as text.
  await table.getByRole('button', { name: 'Overhead' }).click();
  expect(await order()).toEqual(['raw', 'masking', 'codex (summarization)']);

  // From the keyboard: Tab onto a header's button and press Enter / Space.
  const mean = table.getByRole('button', { name: 'Mean', exact: true });
  await mean.focus();
  await page.keyboard.press('Enter');
  expect(await order()).toEqual(['codex (summarization)', 'masking', 'raw']);
  await page.keyboard.press('Space');
  expect(await order()).toEqual(['raw', 'masking', 'codex (summarization)']);
  expect(await sortedBy()).toEqual(['Mean descending']);
  expect(await page.locator('#sort-status').textContent()).toBe('Sorted by Mean, descending.');

  // An unknown cost ("-") sorts last whichever way.
  const cost = table.getByRole('button', { name: 'Cost' });
  await cost.click();
  expect(await order()).toEqual(['raw', 'masking', 'codex (summarization)']);
  await cost.click();
  expect(await order()).toEqual(['masking', 'raw', 'codex (summarization)']);

  // Text sorts alphabetically; leave the page sorted by strategy for the screenshot.
  await table.getByRole('button', { name: 'Strategy' }).click();
  expect(await order()).toEqual(['codex (summarization)', 'masking', 'raw']);
}
