/**
 * Which output `bench report -o FILE` writes, by the file's extension, and rendering it.
 */
import { extname } from 'node:path';
import { CtxbenchError } from '../core/errors.js';
import type { FileKind } from '../core/output-file.js';
import type { RunResult } from '../core/run-records.js';
import { MARKDOWN_SUMMARY } from '../gate/output.js';
import { REPORT_CSV, REPORT_JSON, reportCsv, reportJson, reportMarkdown } from './exports.js';
import { HTML_REPORT, renderReport } from './render.js';
import type { ReportMeta } from './view.js';

/** Each output: the extensions that select it, its renderer, and the kind of file it may replace. */
const FORMATS = {
  html: { extensions: ['.html', '.htm'], render: renderReport, kind: HTML_REPORT },
  json: { extensions: ['.json'], render: reportJson, kind: REPORT_JSON },
  csv: { extensions: ['.csv'], render: (runs: readonly RunResult[]) => reportCsv(runs), kind: REPORT_CSV },
  markdown: { extensions: ['.md', '.markdown'], render: reportMarkdown, kind: MARKDOWN_SUMMARY },
} as const;

export type OutputFormat = keyof typeof FORMATS;

export function outputFormat(file: string): OutputFormat {
  const ext = extname(file).toLowerCase();
  const found = (Object.keys(FORMATS) as OutputFormat[]).find((format) => (FORMATS[format].extensions as readonly string[]).includes(ext));
  if (found === undefined) {
    throw new CtxbenchError('OPTION_INVALID', `-o ${file}: unknown output format "${ext || '(no extension)'}"; use .html, .json, .csv or .md`);
  }
  return found;
}

export function renderOutput(format: OutputFormat, runs: readonly RunResult[], meta: ReportMeta): string {
  return FORMATS[format].render(runs, meta);
}

/** The kind of existing file an output of `format` may replace. */
export function outputKind(format: OutputFormat): FileKind {
  return FORMATS[format].kind;
}
