/**
 * Plain-text tables for the terminal: aligned columns, no colours (CI logs and pipes stay readable).
 */

export type Cell = string | number;

export interface Column {
  readonly header: string;
  /** Numbers align right by default, text left. */
  readonly align?: 'left' | 'right';
}

export function formatTable(columns: readonly Column[], rows: readonly (readonly Cell[])[]): string {
  const text = rows.map((row) => row.map((cell) => (typeof cell === 'number' ? formatNumber(cell) : cell)));
  const widths = columns.map((c, i) => Math.max(c.header.length, ...text.map((r) => (r[i] ?? '').length)));
  const aligns = columns.map((c, i) => c.align ?? (rows.every((r) => typeof r[i] === 'number') && rows.length > 0 ? 'right' : 'left'));
  const line = (cells: readonly string[]): string =>
    cells
      .map((cell, i) => (aligns[i] === 'right' ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(columns.map((c) => c.header)), line(widths.map((w) => '-'.repeat(w))), ...text.map(line)].join('\n');
}

export function formatNumber(n: number): string {
  return Number.isInteger(n) ? n.toLocaleString('en-US') : n.toFixed(2);
}

export function formatPct(fraction: number): string {
  return `${(fraction * 100).toFixed(1)}%`;
}
