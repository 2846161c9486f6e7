/**
 * `bench strategies`: every strategy with its seed, summary and parameters (default and range), then
 * every preset with the settings it applies; or all of it as one JSON document (--json).
 */
import { PRESETS } from '../../strategies/presets.js';
import { STRATEGIES } from '../../strategies/index.js';
import { describeRange, paramEntries } from '../../core/params.js';
import { printDocument } from '../json/document.js';
import { strategiesDocument } from '../json/strategies.js';

export interface StrategiesOptions {
  /** One JSON document instead of the text (json/strategies.ts). */
  readonly json?: boolean;
}

export function strategiesCommand(options: StrategiesOptions = {}): void {
  if (options.json) return printDocument(strategiesDocument());
  const lines: string[] = ['Strategies (--strategy NAME, parameters with --param NAME.PARAM=VALUE):', ''];
  for (const s of Object.values(STRATEGIES)) {
    lines.push(`${s.name}${s.seed ? ` (seed ${s.seed})` : ''}: ${s.summary}`);
    for (const p of paramEntries(s.params)) {
      lines.push(`  --param ${s.name}.${p.name}=${String(p.default)}  ${p.description} (${describeRange(p)})`);
    }
    lines.push('');
  }
  const presets = Object.values(PRESETS);
  if (presets.length > 0) {
    lines.push('Presets (--preset NAME; --param still overrides):', '');
    for (const p of presets) {
      const settings = Object.entries(p.params).map(([k, v]) => `${k}=${String(v)}`).join(' ');
      lines.push(`${p.name} = ${p.strategy.name} ${settings}`, `  ${p.summary}`, `  Source: ${p.source}`, `  Not reproduced: ${p.notReproduced}`, '');
    }
  }
  process.stdout.write(lines.join('\n'));
}
