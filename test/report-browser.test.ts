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
it('renders every chart offline, without errors or injected scripts running', async () => {
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
  await expect.poll(() => charts.nth(1).locator('.step-info').textContent()).toMatch(/^Step 5.*masking/s);
  await page.mouse.move(0, 0);

  mkdirSync(join(SCREENSHOT, '..'), { recursive: true });
  await page.screenshot({ path: SCREENSHOT, fullPage: true });
  expect(problems).toEqual([]);
}
