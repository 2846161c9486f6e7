import { describe, expect, it } from 'vitest';
import { errorLine } from './errors.js';

describe('errorLine', () => {
  it('is the first line that is not blank, and the next one when the first only announces it', () => {
    expect(errorLine(new Error('boom'))).toBe('boom');
    expect(errorLine(new Error('\n  first\nsecond'))).toBe('first');
    expect(errorLine(new Error('Transform failed with 1 error:\n/x/mine.ts:2:0: ERROR: Expected identifier\nmore'))).toBe(
      'Transform failed with 1 error: /x/mine.ts:2:0: ERROR: Expected identifier',
    );
    expect(errorLine(new Error('ends with a colon:'))).toBe('ends with a colon:');
    expect(errorLine('a thrown string')).toBe('a thrown string');
    expect(errorLine(new Error(''))).toBe('no message');
  });
});
