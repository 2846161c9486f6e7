/**
 * `bench scenarios list|validate|import`; `list --json` prints one JSON document (json/scenarios.ts).
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { stringify as toYaml } from 'yaml';
import { CtxbenchError, isCtxbenchError } from '../../core/errors.js';
import { createFolders } from '../../core/folders.js';
import { checkOutput, writeOutput, type OutputSpec } from '../../core/output-file.js';
import { createTokenCounter } from '../../core/tokens.js';
import { findScenarioFiles } from '../../scenarios/find.js';
import { checkScenarioIds } from '../../runner/job-plan.js';
import { importFileAll, importFound, noScenarioFound, readFound, skippedNote, type FoundUnit, type ImportedFile } from '../../scenarios/load.js';
import { turns } from '../../scenarios/turns.js';
import { SCENARIO_FILE } from '../../scenarios/schema.js';
import { BUNDLED_SCENARIOS } from '../paths.js';
import { printable } from '../printable.js';
import { loadScenariosAt } from '../scenario-paths.js';
import { formatTable } from '../table.js';
import { printDocument } from '../json/document.js';
import { scenarioEntries, scenariosDocument } from '../json/scenarios.js';

export interface ListOptions {
  /** One JSON document instead of the table (json/scenarios.ts). */
  readonly json?: boolean;
}

export async function listCommand(patterns: string[], options: ListOptions = {}): Promise<void> {
  const { scenarios, skipped } = await loadScenariosAt(patterns.length > 0 ? patterns : [BUNDLED_SCENARIOS]);
  // Listed as `bench run` would load them: two with one id are refused there, so here too.
  checkScenarioIds(scenarios);
  const counter = await createTokenCounter('o200k_base');
  const entries = scenarioEntries(scenarios, counter);
  if (options.json) return printDocument(scenariosDocument(entries, skipped, counter));
  const rows = entries.map((s) => [s.id, s.format, s.steps, s.historyTokens, s.recordedPeakTokens ?? '-', s.model, s.window, s.outcome ?? '-']);
  process.stdout.write(
    `${formatTable(
      [
        { header: 'id' },
        { header: 'format' },
        { header: 'steps', align: 'right' },
        { header: 'history tokens', align: 'right' },
        { header: 'recorded peak', align: 'right' },
        { header: 'model' },
        { header: 'window', align: 'right' },
        { header: 'outcome' },
      ],
      rows,
    )}\n`,
  );
}

/**
 * One line per scenario (`ok`), per invalid file or group of call files (`FAIL`) and per file skipped
 * for holding no known format (`skip`: not a failure), then the counts; exits 1 when a file is invalid
 * or no scenario is found. The files are read as `--scenario` reads them (readFound): the call files of
 * a recorded run are checked as the run they join into, so what is `ok` is what `bench run` loads.
 */
export async function validateCommand(patterns: string[]): Promise<void> {
  const files = await findScenarioFiles(patterns);
  const skipped: string[] = [];
  let failed = 0;
  const units = await readFound(files);
  for (const unit of units) {
    if (unit.kind === 'skipped') {
      skipped.push(unit.file);
      process.stdout.write(`skip  ${printable(unit.file)} (no known format)\n`);
    } else if (unit.kind === 'failed') {
      failed += unit.files;
      process.stdout.write(`FAIL  ${printable(unit.error.message)}\n`);
    } else {
      for (const { scenario, format } of unit.imported) {
        process.stdout.write(`ok    ${scenario.file} (${format}, ${turns(scenario).length} steps)\n`);
      }
    }
  }
  const duplicate = duplicateId(units);
  if (duplicate) {
    failed += 1;
    process.stdout.write(`FAIL  ${printable(duplicate.message)}\n`);
  }
  const checked = files.length - skipped.length;
  if (checked === 0) throw noScenarioFound(patterns, skipped);
  const skips = skipped.length > 0 ? `, ${skipped.length} skipped (no known format)` : '';
  if (failed > 0) throw new CtxbenchError('SCENARIO_INVALID', `${failed} of ${checked} scenario file(s) invalid${skips}`);
  process.stdout.write(`${checked} scenario file(s) valid${skips}\n`);
}

/** The error `bench run` gives for two valid scenarios with one id (checkScenarioIds), if any. */
function duplicateId(units: readonly FoundUnit[]): CtxbenchError | undefined {
  try {
    checkScenarioIds(units.flatMap((unit) => (unit.kind === 'imported' ? unit.imported : [])));
    return undefined;
  } catch (error) {
    if (isCtxbenchError(error)) return error;
    throw error;
  }
}

export interface ImportOptions {
  readonly output?: string;
}

const toText = (data: ImportedFile['data'], yaml: boolean): string => (yaml ? toYaml(data, { lineWidth: 0 }) : `${JSON.stringify(data, null, 1)}\n`);

const severalRuns = (file: string, runs: number): CtxbenchError =>
  new CtxbenchError('OPTION_INVALID', `${file}: holds ${runs} runs; pass -o FOLDER/ (one file each) or -o FILE.jsonl`);

/** What an import writes to `out`: one line per scenario to a .jsonl file, one <id>.json each into a folder (`dir/`), or one .json/.yaml file. */
async function importedFiles(all: readonly ImportedFile[], file: string, out: string): Promise<{ file: string; text: string }[]> {
  if (/\.jsonl$/i.test(out)) return [{ file: out, text: all.map(({ data }) => `${JSON.stringify(data)}\n`).join('') }];
  if (out.endsWith('/') || out.endsWith(path.sep)) {
    await createFolders(out, `-o ${out}`);
    return all.map(({ data }) => ({ file: path.join(out, `${data.id}.json`), text: toText(data, false) }));
  }
  if (all.length > 1) throw severalRuns(file, all.length);
  return [{ file: out, text: toText(all[0]!.data, /\.ya?ml$/i.test(out)) }];
}

/**
 * Writes the converted scenario(s) to stdout or to `-o` (importedFiles). A folder is read as
 * `--scenario` reads one: the call files of a recorded run give one scenario. Every file is checked
 * before the first is written: a refused one (an input, a file that is not a scenario, two scenarios
 * with one id) leaves everything as it was.
 */
export async function importCommand(file: string, options: ImportOptions): Promise<void> {
  const folder = (await stat(file).catch(() => undefined))?.isDirectory() ?? false;
  const { all, inputs } = folder ? await importFolder(file) : { all: await importFileAll(file), inputs: [file] };
  // Two with one id would be written to one file, the second over the first; `bench run` refuses them too.
  checkScenarioIds(all);
  const out = options.output;
  if (out === undefined && all.length > 1) throw severalRuns(file, all.length);
  const written = out === undefined ? [] : await importedFiles(all, file, out);
  // Each file read is an input: `import d/ -o d/` must not write d/x.json over the scenario x it read there.
  const spec = (output: string): OutputSpec => ({ label: `-o ${output}`, kind: SCENARIO_FILE, inputs: inputs.map((input) => ({ label: `the input ${input}`, file: input })) });
  for (const w of written) await checkOutput(w.file, spec(w.file));
  const steps = all.reduce((n, { scenario }) => n + turns(scenario).length, 0);
  // A folder may hold several formats: each is named, with its count when there are several.
  const formats = [...new Set(all.map((f) => f.format))];
  const detected = formats.length === 1 ? `format ${formats[0]}` : `formats ${formats.map((f) => `${f} (${all.filter((i) => i.format === f).length})`).join(', ')}`;
  process.stderr.write(`${file}: detected ${detected}; ${all.length} scenario(s), ${steps} steps\n`);
  if (out === undefined) process.stdout.write(toText(all[0]!.data, false));
  for (const w of written) {
    await writeOutput(w.file, w.text, spec(w.file));
    process.stderr.write(`wrote ${w.file}\n`);
  }
}

/**
 * Every scenario a folder leads to, as `--scenario` reads it (files of no known format skipped, named
 * in one line), and every file found there.
 */
async function importFolder(folder: string): Promise<{ all: ImportedFile[]; inputs: string[] }> {
  const found = await findScenarioFiles([folder]);
  const { imported, skipped } = await importFound(found);
  if (imported.length === 0) throw noScenarioFound([folder], skipped);
  if (skipped.length > 0) process.stderr.write(`bench: ${printable(skippedNote(skipped))}\n`);
  return { all: imported, inputs: found.map((f) => f.file) };
}
