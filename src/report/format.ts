/**
 * Number and text formatting shared by the report's parts, so a value reads the same in the header,
 * the tables, the exports and the charts' JSON.
 */
import type { RunResult, RunStatus } from '../core/run-records.js';

const int = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
export const fmtInt = (n: number): string => int.format(n);

/** "1 restart", "3 restarts": a count with its noun. */
export const fmtCount = (n: number, noun: string): string => `${fmtInt(n)} ${noun}${n === 1 ? '' : 's'}`;
export const fmtPct = (fraction: number): string => `${(fraction * 100).toFixed(1)}%`;
export const usd = (n: number): string => `$${n.toFixed(2)}`;
/** Small amounts keep two significant digits, so a cheap run doesn't read as free. */
export const dollars = (n: number): string => (n > 0 && n < 0.01 ? `$${n.toPrecision(2)}` : usd(n));
/** A fraction at the 0.1% the page prints, so two values that read alike compare alike. */
export const roundPct = (fraction: number): number => Math.round(fraction * 1000) / 1000;

export const distinct = <T>(values: readonly T[]): T[] => [...new Set(values)];
export const sum = <T>(items: readonly T[], pick: (item: T) => number): number => items.reduce((acc, item) => acc + pick(item), 0);

const DETAIL_MAX = 200;
export const truncate = (text: string, max = DETAIL_MAX): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

export const STATUS_TEXT: Readonly<Record<RunStatus, string>> = {
  completed: 'completed',
  truncated: 'truncated',
  overflow: 'overflow',
  invalid_context: 'invalid context',
  stopped: 'stopped',
  error: 'error',
};

/** "completed", or how and where the run ended: "overflow at step 5", "truncated from step 3" (it went on to the end). */
export function statusText(run: RunResult): string {
  const { status, failedStep } = run.summary;
  if (status === 'completed') return 'completed';
  return `${STATUS_TEXT[status]}${failedStep === undefined ? '' : ` ${status === 'truncated' ? 'from' : 'at'} step ${failedStep}`}`;
}

/** Soft hyphens where a "-" is written: a long header may break there when the table needs the room. */
export const shy = (label: string): string => label.replace(/-/g, '\u00AD');
/** The label without its soft hyphens, for text outputs. */
export const plain = (label: string): string => label.replace(/\u00AD/g, '');
