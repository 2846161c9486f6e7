import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { configKeys, parseConfig } from './config.js';
import { collect } from './options.js';
import { buildProgram } from './program.js';

const program = buildProgram({ interruptible: (work) => work(new AbortController().signal) });
const command = (name: string): Command => program.commands.find((c) => c.name() === name)!;
const run = command('run');
const sweep = command('sweep');

const settings = (cmd: Command, data: unknown): Record<string, unknown> => parseConfig(cmd, 'ctxbench.config.yaml', data);

describe('the config file', () => {
  describe('its keys are the long flags in camelCase, read from the command', () => {
    it('takes every `bench run` flag by its camelCase name (except --config itself), and the negated ones as noX', () => {
      const flags = run.options.filter((o) => o.long !== '--config').flatMap((o) => [o.attributeName(), ...(o.negate ? [camel(o.name())] : [])]);
      expect([...configKeys(run)].sort()).toEqual([...new Set(flags)].sort());
      expect(configKeys(run)).toEqual(expect.arrayContaining(['noReport', 'noCache', 'noCalibrate', 'report', 'cache', 'calibrate', 'batchId']));
    });

    it('a flag added to a command is a setting without touching the config code', () => {
      const cmd = new Command('x').option('--frobnicate <n>', 'a new flag').option('--knob <name=value>', 'repeatable', collect, []).option('--no-wobble', 'a negated one');
      expect(settings(cmd, { frobnicate: 3, knob: { a: 1 }, noWobble: true })).toEqual({ frobnicate: '3', knob: ['a=1'], wobble: false });
    });

    it('bench sweep takes its own flags too (--grid), bench run refuses them', () => {
      expect(settings(sweep, { grid: ['softThreshold=0.5:0.9:0.1'] })).toEqual({ grid: ['softThreshold=0.5:0.9:0.1'] });
      expect(settings(sweep, { grid: { keep: '5,10' } })).toEqual({ grid: ['keep=5,10'] });
      expect(() => settings(run, { grid: 'keep=5,10' })).toThrow(/^ctxbench\.config\.yaml: unknown setting grid \(known: .*strategy/);
    });
  });

  describe('negated flags (--no-report, --no-cache, --no-calibrate)', () => {
    it('take their camelCase forms noReport, noCache, noCalibrate', () => {
      expect(settings(run, { noReport: true, noCache: true, noCalibrate: true })).toEqual({ report: false, cache: false, calibrate: false });
    });

    it('and their positive forms, as before: report: false, cache: false, calibrate: false', () => {
      expect(settings(run, { report: false, cache: false, calibrate: false })).toEqual({ report: false, cache: false, calibrate: false });
      expect(settings(run, { report: 'out/r.html', cache: true })).toEqual({ report: 'out/r.html', cache: true });
    });

    it('noX: false leaves the flag at its default (on)', () => {
      expect(settings(run, { noReport: false, noCache: false })).toEqual({});
    });

    it('refuses both forms of one flag at once, naming them', () => {
      expect(() => settings(run, { report: 'r.html', noReport: true })).toThrow(/^ctxbench\.config\.yaml: report and noReport: give one of them$/);
    });

    it('refuses a value that is not a boolean, naming the key', () => {
      expect(() => settings(run, { noReport: 'yes' })).toThrow(/^ctxbench\.config\.yaml: noReport: .*expected boolean/);
      expect(() => settings(run, { report: true })).toThrow(/^ctxbench\.config\.yaml: report: /);
    });
  });

  describe('values', () => {
    it('a repeatable flag takes one value or a list; a value flag a string or a number', () => {
      expect(settings(run, { strategy: 'raw', scenario: ['a/', 'b.json'], window: 32768, model: 'ollama:chat:qwen2.5-coder:7b' })).toEqual({
        strategy: ['raw'],
        scenario: ['a/', 'b.json'],
        window: '32768',
        model: 'ollama:chat:qwen2.5-coder:7b',
      });
    });

    it('a name=value flag (--param) also takes a mapping', () => {
      expect(settings(run, { param: { 'masking.softThreshold': 0.6, autoRestart: false } })).toEqual({ param: ['masking.softThreshold=0.6', 'autoRestart=false'] });
      expect(settings(run, { param: 'softThreshold=0.6' })).toEqual({ param: ['softThreshold=0.6'] });
    });

    it('a switch (--resume) takes a boolean', () => {
      expect(settings(run, { resume: true })).toEqual({ resume: true });
      expect(() => settings(run, { resume: 'yes' })).toThrow(/^ctxbench\.config\.yaml: resume: /);
    });

    it('refuses a file that is not a mapping', () => {
      expect(() => settings(run, ['raw'])).toThrow(/^ctxbench\.config\.yaml: \(top level\): /);
    });
  });
});

function camel(name: string): string {
  return name.replace(/-(\w)/g, (_, c: string) => c.toUpperCase());
}
