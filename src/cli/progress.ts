/**
 * Progress on stderr: one bar over the whole matrix on a TTY (steps done, runs done, prompt tokens
 * per second), one milestone line per finished run elsewhere (CI logs).
 */
import cliProgress from 'cli-progress';
import type { RunResult } from '../core/run-records.js';

export interface Progress {
  step(promptTokens: number): void;
  runFinished(run: RunResult): void;
  stop(): void;
}

export function describeOutcome(run: RunResult): string {
  const s = run.summary;
  switch (s.status) {
    case 'completed':
      return 'completed';
    case 'overflow':
      return `overflow at step ${s.failedStep}`;
    case 'truncated':
      // Every step was replayed; the failure says what the provider counted.
      return `truncated from step ${s.failedStep}`;
    default:
      return `${s.status} at step ${s.failedStep}: ${s.failure ?? ''}`;
  }
}

/** The run's strategy with its sweep setting when it has one (`masking[softThreshold=0.6]`, as its run id), and its scenario. */
const label = ({ config }: RunResult): string => `${config.strategy}${config.variant ? `[${config.variant}]` : ''} x ${config.scenarioId}`;

/** Whether progress shows steps (the bar on a TTY); else it is one line per run and steps need not be reported. */
export const showsSteps = (stream: NodeJS.WriteStream = process.stderr): boolean => stream.isTTY === true;

/** How long preparing the scenarios goes on unshown: a small matrix's is over before a bar would be read. */
export const PREPARATION_SHOWN_AFTER_MS = 300;

/** The work before the first run: reading the scenario files, then counting and digesting every scenario. */
export interface Preparation {
  read(done: number, total: number): void;
  counted(done: number, total: number): void;
  /** Over (the run is, or failed): nothing more is shown. */
  stop(): void;
}

/**
 * The preparation (seconds for a hundred long scenarios) as a bar per phase on a TTY, once it has
 * taken PREPARATION_SHOWN_AFTER_MS, each cleared when its phase is done; nothing elsewhere, where each
 * run's line follows.
 */
export function createPreparation(stream: NodeJS.WriteStream = process.stderr, now: () => number = () => performance.now()): Preparation {
  if (!showsSteps(stream)) return { read: () => {}, counted: () => {}, stop: () => {} };
  const started = now();
  let bar: cliProgress.SingleBar | undefined;
  let over = false;
  const done = (): void => {
    bar?.stop();
    bar = undefined;
  };
  const phase =
    (what: string) =>
    (count: number, total: number): void => {
      if (over || (bar === undefined && now() - started < PREPARATION_SHOWN_AFTER_MS)) return;
      if (bar === undefined) {
        bar = new cliProgress.SingleBar({ stream, format: `{bar} {value}/{total} ${what}`, hideCursor: true, clearOnComplete: true }, cliProgress.Presets.shades_classic);
        bar.start(total, count);
      } else bar.update(count);
      if (count === total) done();
    };
  return {
    read: phase('scenario files read'),
    counted: phase('scenarios counted'),
    stop: () => {
      over = true;
      done();
    },
  };
}

export function createProgress(runs: number, steps: number, stream: NodeJS.WriteStream = process.stderr): Progress {
  let finished = 0;
  if (!showsSteps(stream)) {
    return {
      step: () => {},
      runFinished: (run) => stream.write(`[${++finished}/${runs}] ${label(run)}: ${describeOutcome(run)}\n`),
      stop: () => {},
    };
  }
  const bar = new cliProgress.SingleBar(
    { stream, format: '{bar} {value}/{total} steps | runs {runs} | {rate} prompt tok/s | {last}', hideCursor: true, clearOnComplete: true },
    cliProgress.Presets.shades_classic,
  );
  const started = performance.now();
  let tokens = 0;
  let done = 0;
  const payload = (last: string) => ({ runs: `${finished}/${runs}`, rate: Math.round(tokens / Math.max(0.001, (performance.now() - started) / 1000)), last });
  let last = '';
  bar.start(steps, 0, payload(last));
  return {
    step: (promptTokens) => {
      tokens += promptTokens;
      bar.update(++done, payload(last));
    },
    runFinished: (run) => {
      finished += 1;
      // A run that stops early never replays its remaining steps: take them off the total.
      bar.setTotal(bar.getTotal() - (run.summary.totalSteps - run.summary.steps));
      last = `${label(run)}: ${describeOutcome(run)}`;
      bar.update(done, payload(last));
    },
    stop: () => bar.stop(),
  };
}
