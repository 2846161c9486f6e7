import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { codeDigest } from './code-digest.js';

describe('codeDigest', () => {
  let root: string;
  const put = (file: string, text: string): void => {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  };
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('changes with any code file, and only with code: tests, declarations and maps are left out', () => {
    root = mkdtempSync(path.join(tmpdir(), 'code-'));
    put('strategies/masking.js', 'export const soft = 0.7;');
    put('report/templates/report.hbs', '<html>');
    const digest = codeDigest(root);
    expect(digest).toMatch(/^[0-9a-f]{16}$/);
    put('strategies/masking.test.js', 'test');
    put('strategies/masking.d.ts', 'export declare const soft: number;');
    put('strategies/masking.js.map', '{}');
    expect(codeDigest(root)).toBe(digest);
    put('strategies/masking.js', 'export const soft = 0.85;');
    expect(codeDigest(root)).not.toBe(digest);
    put('strategies/masking.js', 'export const soft = 0.7;');
    put('strategies/extra.js', '');
    expect(codeDigest(root)).not.toBe(digest); // a file added is another build
  });
});
