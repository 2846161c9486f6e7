/**
 * Progress on stderr: a bar on a TTY, one milestone line per finished run elsewhere (CI logs).
 */
import cliProgress from 'cli-progress';
import type { RunResult } from '../runner/types.js';

export interface Progress {
  runStarted(label: string, index: number, total: number, steps: number): void;
  step(done: number, total: number): void;
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
    default:
      return `${s.status} at step ${s.failedStep}: ${s.failure ?? ''}`;
  }
}

export function createProgress(stream: NodeJS.WriteStream = process.stderr): Progress {
  if (!stream.isTTY) {
    let current = '';
    let position = '';
    return {
      runStarted: (label, index, total) => {
        current = label;
        position = `[${index}/${total}]`;
      },
      step: () => {},
      runFinished: (run) => stream.write(`${position} ${current}: ${describeOutcome(run)}\n`),
      stop: () => {},
    };
  }
  const bar = new cliProgress.SingleBar(
    { stream, format: '{run} {bar} {value}/{total} steps | run {index}/{runs}', hideCursor: true, clearOnComplete: true },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    runStarted: (label, index, total, steps) => {
      if (started) bar.stop();
      bar.start(steps, 0, { run: label, index, runs: total });
      started = true;
    },
    step: (done) => bar.update(done),
    runFinished: () => {},
    stop: () => {
      if (started) bar.stop();
    },
  };
}
