import { describe, expect, it } from 'vitest';
import { fullAfter, refusedOpen } from '../../test/helpers/spill.js';
import { openSpillFile, spillStore } from './spill-file.js';

const bytes = (...values: number[]): Uint8Array => Uint8Array.from(values);

describe('spillStore', () => {
  it('opens its file at the first block, and gives each block back as often as asked', () => {
    let opened = 0;
    const store = spillStore('ctxbench-spill-test-', (prefix) => (opened++, openSpillFile(prefix)));
    expect(opened).toBe(0);
    const first = store.put(bytes(1, 2, 3));
    const second = store.put(bytes(4));
    expect(opened).toBe(1);
    expect([...first()]).toEqual([1, 2, 3]);
    expect([...second()]).toEqual([4]);
    expect([...first()]).toEqual([1, 2, 3]);
    store.close();
    expect(() => first()).toThrow(); // closed: the file is gone
  });

  it('keeps blocks in memory from the first refusal on, the blocks written before still read', () => {
    const none = spillStore('x', refusedOpen);
    expect([...none.put(bytes(7))()]).toEqual([7]);
    const full = fullAfter(1);
    const some = spillStore('x', () => full.file);
    const kept = [bytes(1), bytes(2), bytes(3)].map((b) => some.put(b));
    expect(full.writes()).toBe(2); // the third is not tried
    expect(kept.map((get) => [...get()])).toEqual([[1], [2], [3]]);
    some.close();
  });

  it('throws what is not the file system refusing', () => {
    const store = spillStore('x', () => {
      throw new TypeError('a bug');
    });
    expect(() => store.put(bytes(1))).toThrow('a bug');
  });
});
