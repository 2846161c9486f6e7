/**
 * Which output `bench report -o FILE` writes, by the file's extension, and rendering it.
 */
import { extname } from 'node:path';
import { CtxbenchError } from '../core/errors.js';
import type { RunResult } from '../core/run-records.js';
import { reportCsv, reportJson, reportMarkdown } from './exports.js';
import { renderReport } from './render.js';
import type { ReportMeta } from './view.js';

const FORMATS = {
  html: { extensions: ['.html', '.htm'], render: renderReport },
  json: { extensions: ['.json'], render: reportJson },
  csv: { extensions: ['.csv'], render: (runs: readonly RunResult[]) => reportCsv(runs) },
  markdown: { extensions: ['.md', '.markdown'], render: reportMarkdown },
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
