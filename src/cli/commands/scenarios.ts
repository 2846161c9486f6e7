/**
 * `bench scenarios list|validate|import`.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { stringify as toYaml } from 'yaml';
import { CtxbenchError, isCtxbenchError } from '../../core/errors.js';
import { createTokenCounter } from '../../core/tokens.js';
import { windowFor } from '../../runner/job-plan.js';
import { findScenarioFiles } from '../../scenarios/find.js';
import { importFileAll, loadFoundFile, noScenarioFound, type ImportedFile } from '../../scenarios/load.js';
import { turns } from '../../scenarios/scenario.js';
import { BUNDLED_SCENARIOS } from '../paths.js';
import { printable } from '../printable.js';
import { loadScenariosAt } from '../scenario-paths.js';
import { formatTable } from '../table.js';

export async function listCommand(patterns: string[]): Promise<void> {
  const scenarios = await loadScenariosAt(patterns.length > 0 ? patterns : [BUNDLED_SCENARIOS]);
  const counter = await createTokenCounter('o200k_base');
  const rows = [];
  for (const { scenario, format } of scenarios) {
    const recorded = turns(scenario).map((t) => t.assistant.usage?.promptTokens ?? 0);
    const peak = Math.max(0, ...recorded);
    rows.push([
      scenario.id,
      format,
      turns(scenario).length,
      counter.countContext(scenario.messages),
      peak > 0 ? peak : '-',
      scenario.model.name,
      windowFor(scenario).window,
      scenario.outcome ?? '-',
    ]);
  }
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
 * One line per scenario (`ok`), per invalid file (`FAIL`) and per file skipped for holding no known
 * format (`skip`: not a failure), then the counts; exits 1 when a file is invalid or no scenario is found.
 */
export async function validateCommand(patterns: string[]): Promise<void> {
  const files = await findScenarioFiles(patterns);
  const skipped: string[] = [];
  let failed = 0;
  for (const found of files) {
    try {
      const loaded = await loadFoundFile(found);
      if (loaded === undefined) {
        skipped.push(found.file);
        process.stdout.write(`skip  ${printable(found.file)} (no known format)\n`);
      }
      for (const { scenario, format } of loaded ?? []) {
        process.stdout.write(`ok    ${scenario.file} (${format}, ${turns(scenario).length} steps)\n`);
      }
    } catch (error) {
      if (!isCtxbenchError(error)) throw error;
      failed += 1;
      process.stdout.write(`FAIL  ${printable(error.message)}\n`);
    }
  }
  const checked = files.length - skipped.length;
  if (checked === 0) throw noScenarioFound(patterns, skipped);
  const skips = skipped.length > 0 ? `, ${skipped.length} skipped (no known format)` : '';
  if (failed > 0) throw new CtxbenchError('SCENARIO_INVALID', `${failed} of ${checked} scenario file(s) invalid${skips}`);
  process.stdout.write(`${checked} scenario file(s) valid${skips}\n`);
}

export interface ImportOptions {
  readonly output?: string;
}

const toText = (data: ImportedFile['data'], yaml: boolean): string => (yaml ? toYaml(data, { lineWidth: 0 }) : `${JSON.stringify(data, null, 1)}\n`);

/**
 * Writes the converted scenario(s): to stdout, to one .json/.yaml file, or, for a file holding
 * several runs, one line each to a .jsonl file or one <id>.json each into a folder (`-o dir/`).
 */
export async function importCommand(file: string, options: ImportOptions): Promise<void> {
  const all = await importFileAll(file);
  const steps = all.reduce((n, { scenario }) => n + turns(scenario).length, 0);
  process.stderr.write(`${file}: detected format ${all[0]!.format}; ${all.length} scenario(s), ${steps} steps\n`);
  const out = options.output;
  const toFolder = out !== undefined && (out.endsWith('/') || out.endsWith(path.sep));
  if (out !== undefined && /\.jsonl$/i.test(out)) {
    await write(out, all.map(({ data }) => `${JSON.stringify(data)}\n`).join(''));
  } else if (toFolder) {
    for (const { data } of all) await write(path.join(out, `${data.id}.json`), toText(data, false));
  } else if (all.length > 1) {
    throw new CtxbenchError('OPTION_INVALID', `${file}: holds ${all.length} runs; pass -o FOLDER/ (one file each) or -o FILE.jsonl`);
  } else if (out === undefined) {
    process.stdout.write(toText(all[0]!.data, false));
  } else {
    await write(out, toText(all[0]!.data, /\.ya?ml$/i.test(out)));
  }
}

async function write(file: string, text: string): Promise<void> {
  await mkdir(path.dirname(path.resolve(file)), { recursive: true });
  await writeFile(file, text);
  process.stderr.write(`wrote ${file}\n`);
}
