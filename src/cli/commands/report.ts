/**
 * `bench report`: render a results database (latest batch, a given one, or all) to HTML, JSON, CSV
 * or markdown, optionally against a baseline. Everything is read and rendered before anything is
 * written, so a bad input leaves no partial output behind.
 */
import path from 'node:path';
import { checkOutputs, writeOutput, type OutputSpec } from '../../core/output-file.js';
import { loadBaseline } from '../../report/baseline-source.js';
import { outputFormat, outputKind, renderOutput } from '../../report/outputs.js';
import { readBatch } from '../../store/read-batch.js';
import { DEFAULT_REPORT, VERSION } from '../paths.js';

export interface ReportOptions {
  readonly db: string;
  /** Files to write; the format follows the extension. Default: the HTML report. */
  readonly output: readonly string[];
  readonly batch?: string;
  readonly baseline?: string;
}

export async function reportCommand(options: ReportOptions): Promise<void> {
  const inputs = [{ label: `--db ${options.db}`, file: options.db }, ...(options.baseline === undefined ? [] : [{ label: `--baseline ${options.baseline}`, file: options.baseline }])];
  const outputs = (options.output.length ? options.output : [DEFAULT_REPORT]).map((file) => {
    const format = outputFormat(file);
    return { file, format, spec: { label: `-o ${file}`, kind: outputKind(format), inputs } satisfies OutputSpec };
  });
  await checkOutputs(outputs);
  const baseline = options.baseline === undefined ? undefined : await loadBaseline(options.baseline, options);
  const { runs, batches, calibration } = await readBatch(options.db, options.batch);
  const meta = { generatedAt: new Date(), version: VERSION, database: path.resolve(options.db), batches, baseline, calibration };
  const rendered = outputs.map(({ file, format, spec }) => ({ file, spec, text: renderOutput(format, runs, meta) }));
  for (const { file, spec, text } of rendered) {
    await writeOutput(file, text, spec);
    process.stdout.write(`Report: ${path.resolve(file)} (${runs.length} runs)\n`);
  }
}
