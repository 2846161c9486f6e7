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
