import { describe, expect, it } from 'vitest';
import { CONFIG_KEYS } from './config.js';
import { buildProgram } from './program.js';

describe('the config file', () => {
  it('takes every `bench run` flag, by its camelCase name (except --config itself)', () => {
    const run = buildProgram({ interruptible: (work) => work(new AbortController().signal) }).commands.find((c) => c.name() === 'run')!;
    const flags = [...new Set(run.options.map((o) => o.attributeName()))].filter((name) => name !== 'config');
    expect(flags.filter((name) => !CONFIG_KEYS.includes(name))).toEqual([]);
    expect(CONFIG_KEYS.filter((key) => !flags.includes(key))).toEqual([]);
  });
});
