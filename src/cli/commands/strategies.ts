/**
 * `bench strategies`: every strategy with its seed, summary and parameters (default and range).
 */
import { STRATEGIES } from '../../strategies/index.js';
import { describeRange } from '../../strategies/params.js';

export function strategiesCommand(): void {
  const lines: string[] = [];
  for (const s of Object.values(STRATEGIES)) {
    lines.push(`${s.name}${s.seed ? ` (seed ${s.seed})` : ''}: ${s.summary}`);
    for (const p of s.params) {
      lines.push(`  --param ${s.name}.${p.name}=${String(p.default)}  ${p.description} (${describeRange(p)})`);
    }
    lines.push('');
  }
  process.stdout.write(lines.join('\n'));
}
