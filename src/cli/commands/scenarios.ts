/**
 * `bench scenarios list|validate|import`.
 */
import { mkdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { stringify as toYaml } from 'yaml';
import { CtxbenchError, isCtxbenchError } from '../../core/errors.js';
import { createTokenCounter } from '../../core/tokens.js';
import { windowFor } from '../../runner/job-plan.js';
import { importFileAll, importFiles, loadScenarioFiles, loadScenarios, resolveScenarioPaths, type ImportedFile } from '../../scenarios/load.js';
import { turns } from '../../scenarios/scenario.js';
import { BUNDLED_SCENARIOS } from '../paths.js';
import { printable } from '../printable.js';
import { formatTable } from '../table.js';

export async function listCommand(patterns: string[]): Promise<void> {
  const files = await resolveScenarioPaths(patterns.length > 0 ? patterns : [BUNDLED_SCENARIOS]);
  const counter = await createTokenCounter('o200k_base');
  const rows = [];
  for (const { scenario, format } of await loadScenarioFiles(files)) {
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

export async function validateCommand(patterns: string[]): Promise<void> {
  const files = await resolveScenarioPaths(patterns);
  let failed = 0;
  for (const file of files) {
    try {
      for (const { scenario, format } of await loadScenarios(file)) {
        process.stdout.write(`ok    ${scenario.file} (${format}, ${turns(scenario).length} steps)\n`);
      }
    } catch (error) {
      if (!isCtxbenchError(error)) throw error;
      failed += 1;
      process.stdout.write(`FAIL  ${printable(error.message)}\n`);
    }
  }
  if (failed > 0) throw new CtxbenchError('SCENARIO_INVALID', `${failed} of ${files.length} scenario file(s) invalid`);
}

export interface ImportOptions {
  readonly output?: string;
}

const toText = (data: ImportedFile['data'], yaml: boolean): string => (yaml ? toYaml(data, { lineWidth: 0 }) : `${JSON.stringify(data, null, 1)}\n`);

/**
 * Writes the converted scenario(s): to stdout, to one .json/.yaml file, or, for a file holding
 * several runs, one line each to a .jsonl file or one <id>.json each into a folder (`-o dir/`). A
 * folder is read as `--scenario` reads one: the call files of a recorded run give one scenario.
 */
export async function importCommand(file: string, options: ImportOptions): Promise<void> {
  const folder = (await stat(file).catch(() => undefined))?.isDirectory() ?? false;
  const all = folder ? await importFiles(await resolveScenarioPaths([file])) : await importFileAll(file);
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
