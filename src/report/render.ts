/**
 * The HTML report: one self-contained page (inline CSS, JS, data and chart library) that opens from
 * file:// offline. Templates are read next to this module, so the same code runs from src and dist.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Handlebars from 'handlebars';
import type { FileKind } from '../core/output-file.js';
import type { RunResult } from '../core/run-records.js';
import { withVisibleBidi } from './bidi.js';
import { buildView, type ReportMeta } from './view.js';

export type { ReportMeta } from './view.js';

interface Assets {
  readonly template: Handlebars.TemplateDelegate;
  readonly css: string;
  readonly pageJs: string;
  readonly uplotJs: string;
  readonly uplotCss: string;
}

let assets: Assets | undefined;

/** The page script's parts, in load order: helpers first, the boot last. */
const CLIENT_FILES = ['common.js', 'tables.js', 'curves.js', 'pareto.js', 'sweep.js', 'timeline.js', 'main.js'];

function loadAssets(): Assets {
  const templates = fileURLToPath(new URL('./templates/', import.meta.url));
  const read = (file: string): string => readFileSync(join(templates, file), 'utf8');
  const uplotDist = dirname(createRequire(import.meta.url).resolve('uplot'));
  const uplotDir = dirname(uplotDist);
  const { version, license } = JSON.parse(readFileSync(join(uplotDir, 'package.json'), 'utf8')) as {
    version: string;
    license: string;
  };
  const copyright = /^Copyright .*$/m.exec(readFileSync(join(uplotDir, 'LICENSE'), 'utf8'))?.[0] ?? '';
  // The stock banner is a URL; the page must name none, so it is swapped for the license notice.
  const stock = readFileSync(join(uplotDist, 'uPlot.iife.min.js'), 'utf8').replace(/^\/\*![^]*?\*\/\s*/, '');
  const uplotJs = `/*! uPlot v${version} | ${license} License | ${copyright} */\n${stock}`;
  // A private instance: no global helpers or partials leak in, and strict mode catches a misspelt field.
  const hbs = Handlebars.create();
  return {
    template: hbs.compile(read('report.hbs'), { strict: true, knownHelpersOnly: true }),
    css: read('report.css'),
    // One strict IIFE: the files share helpers by name, and nothing leaks into the page's globals.
    pageJs: `(function () {\n'use strict';\n${CLIENT_FILES.map((file) => read(`client/${file}`)).join('\n')}\n})();\n`,
    uplotJs,
    uplotCss: readFileSync(join(uplotDist, 'uPlot.min.css'), 'utf8'),
  };
}

/** JSON that can sit inside <script>: no "</script>" or "<!--", and no line separators old parsers choke on. */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** Third-party code goes into raw-text elements, where only a closing tag could end it early. */
const inlineSafe = (code: string, tag: 'script' | 'style'): string =>
  code.replace(new RegExp(`</(${tag})`, 'gi'), '<\\/$1');

const sha256 = (text: string): string => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/**
 * A page this renderer wrote: the doctype, then, at the top of its head, the generator marker of
 * report.hbs (or, on a page from before the marker, its title), so a report only replaces a report.
 */
export const HTML_REPORT: FileKind = {
  name: 'an HTML report',
  matches: (head) => /^<!doctype html>[^]*(?:<meta name="generator" content="ctxbench |<title>ctxbench report<\/title>)/i.test(head.toString('utf8', 0, 1024)),
};

/** Renders the report page. Pure: same runs and meta, same HTML. */
export function renderReport(runs: readonly RunResult[], meta: ReportMeta): string {
  assets ??= loadAssets();
  // Scenario text is written out where it would reorder its neighbours; the exports keep it as recorded.
  const { data, timelines, ...view } = buildView(withVisibleBidi(runs), withVisibleBidi(meta));
  const uplotJs = inlineSafe(assets.uplotJs, 'script');
  const pageJs = inlineSafe(assets.pageJs, 'script');
  // Only the two scripts shipped here may run, so markup that slipped past escaping still can't execute.
  const csp = [
    "default-src 'none'",
    `script-src ${sha256(uplotJs)} ${sha256(pageJs)}`,
    "style-src 'unsafe-inline'",
    'img-src data:',
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  return assets.template({
    ...view,
    csp,
    css: inlineSafe(assets.css, 'style'),
    uplotCss: inlineSafe(assets.uplotCss, 'style'),
    uplotJs,
    pageJs,
    dataJson: jsonForScript(data),
    timelinesJson: jsonForScript(timelines),
  });
}
