import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createPreparation, PREPARATION_SHOWN_AFTER_MS } from './progress.js';

/** A stream that says it is a terminal (or not), keeping what is written. */
function terminal(isTTY: boolean): { stream: NodeJS.WriteStream; text: () => string } {
  let written = '';
  const stream = new Writable({
    write(chunk, _encoding, done) {
      written += String(chunk);
      done();
    },
  }) as unknown as NodeJS.WriteStream;
  Object.assign(stream, { isTTY, columns: 100, cursorTo: () => true, clearLine: () => true, moveCursor: () => true });
  return { stream, text: () => written };
}

describe('createPreparation', () => {
  it('on a terminal, shows nothing for a preparation over quickly, then a bar per phase, each cleared when done', () => {
    const { stream, text } = terminal(true);
    let clock = 0;
    const preparing = createPreparation(stream, () => clock);
    preparing.read(1, 3);
    expect(text()).toBe('');
    clock = PREPARATION_SHOWN_AFTER_MS;
    preparing.read(2, 3);
    expect(text()).toContain('2/3 scenario files read');
    let shown = text();
    preparing.read(3, 3);
    expect(text().length).toBeGreaterThan(shown.length); // cleared
    preparing.counted(1, 4);
    expect(text()).toContain('1/4 scenarios counted');
    shown = text();
    preparing.counted(2, 4); // drawn at the bar's own pace
    preparing.stop(); // a failure, or the run's end: cleared, and nothing more after
    const after = text();
    expect(after.length).toBeGreaterThan(shown.length);
    preparing.counted(3, 4);
    expect(text()).toBe(after);
  });

  it('elsewhere (a CI log) writes nothing: each run has its line', () => {
    const { stream, text } = terminal(false);
    let clock = 0;
    const preparing = createPreparation(stream, () => clock);
    clock = 10 * PREPARATION_SHOWN_AFTER_MS;
    preparing.read(1, 2);
    preparing.counted(2, 2);
    preparing.stop();
    expect(text()).toBe('');
  });
});
