/**
 * `bench scenarios list|validate|import`.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { stringify as toYaml } from 'yaml';
import { CtxbenchError, isCtxbenchError } from '../../core/errors.js';
import { createTokenCounter } from '../../core/tokens.js';
import { windowFor } from '../../runner/matrix.js';
import { importFile, loadScenario, resolveScenarioPaths } from '../../scenarios/load.js';
import { turns } from '../../scenarios/scenario.js';
import { BUNDLED_SCENARIOS } from '../paths.js';
import { formatTable } from '../table.js';

export async function listCommand(patterns: string[]): Promise<void> {
  const files = await resolveScenarioPaths(patterns.length > 0 ? patterns : [BUNDLED_SCENARIOS]);
  const counter = await createTokenCounter('o200k_base');
  const rows = [];
  for (const file of files) {
    const { scenario, format } = await loadScenario(file);
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
      const { scenario, format } = await loadScenario(file);
      process.stdout.write(`ok    ${file} (${format}, ${turns(scenario).length} steps)\n`);
    } catch (error) {
      if (!isCtxbenchError(error)) throw error;
      failed += 1;
      process.stdout.write(`FAIL  ${error.message}\n`);
    }
  }
  if (failed > 0) throw new CtxbenchError('SCENARIO_INVALID', `${failed} of ${files.length} scenario file(s) invalid`);
}

export interface ImportOptions {
  readonly output?: string;
}

export async function importCommand(file: string, options: ImportOptions): Promise<void> {
  const { format, data, scenario } = await importFile(file);
  process.stderr.write(`${file}: detected format ${format}; ${turns(scenario).length} steps\n`);
  const yaml = options.output !== undefined && /\.ya?ml$/i.test(options.output);
  const text = yaml ? toYaml(data, { lineWidth: 0 }) : `${JSON.stringify(data, null, 1)}\n`;
  if (options.output === undefined) {
    process.stdout.write(text);
    return;
  }
  await mkdir(path.dirname(path.resolve(options.output)), { recursive: true });
  await writeFile(options.output, text);
  process.stderr.write(`wrote ${options.output}\n`);
}
