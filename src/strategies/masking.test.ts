import { beforeAll, describe, expect, it } from 'vitest';
import { checkPairing } from '../core/pairing.js';
import type { Message, ToolMessage } from '../core/messages.js';
import { createTokenCounter, type TokenCounter } from '../core/tokens.js';
import { carryover, maskingStrategy, restartMarker, windDownMessage } from './masking.js';
import { placeholder, exitCode } from './parts/placeholders.js';
import { resolveStrategyParams, type StrategyInput, type StrategyRun } from '../core/strategy.js';
import { parallel, round, say, sys, user } from '../../test/helpers/history.js';
import { strategyInput } from '../../test/helpers/strategy-input.js';
import { toolMessage } from '../core/messages.js';

let counter: TokenCounter;
beforeAll(async () => {
  counter = await createTokenCounter('o200k_base');
});

/** Awaits a plan and fills in the optional fields, so assertions read plainly. */
async function plan(run: StrategyRun, i: StrategyInput) {
  const p = await run.beforeRequest(i);
  return { ...p, events: [...(p.events ?? [])], newSession: p.newSession ?? false };
}

const params = (...assignments: string[]) => resolveStrategyParams(maskingStrategy, assignments);

const input = (messages: readonly Message[], window: number, extra: Partial<StrategyInput> = {}): StrategyInput =>
  strategyInput(counter, messages, window, extra);

const big = (label: string, lines = 200): string => Array.from({ length: lines }, (_, i) => `${label} line ${i} with some content`).join('\n');

describe('masking', () => {
  describe('soft threshold', () => {
    it('masks the oldest tool outputs first, only as many as needed, keeping ids and calls', async () => {
      const history = [sys(), user('task'), ...round('bash', big('a')), ...round('bash', big('b')), ...round('bash', big('c')), ...round('bash', 'small')];
      const tokens = counter.countContext(history);
      const window = Math.ceil(tokens / 0.75); // at 75%: above soft (70%), below hard (90%)
      const result = await plan(maskingStrategy.create(params()), input(history, window));
      const masked = result.events.filter((e) => e.kind === 'masked').map((e) => e.messageId);
      expect(masked).toEqual([history[3]!.id]); // one output (the oldest) is enough
      expect(counter.countContext(result.messages)).toBeLessThan(0.7 * window);
      expect(result.messages.map((m) => m.id)).toEqual(history.map((m) => m.id));
      expect(result.messages[3]!.content).toMatch(/^\[bash result masked -- \d+ lines, \d+ bytes of output\]$/);
      expect(result.messages[3]).toMatchObject({ role: 'tool', toolCallId: (history[3] as ToolMessage).toolCallId });
      result.messages.filter((m) => m.role === 'assistant').forEach((m, i) => expect(m).toBe(history.filter((h) => h.role === 'assistant')[i]));
      expect(checkPairing(result.messages)).toEqual([]);
    });

    it('does nothing below the soft threshold and returns the same array', async () => {
      const history = [sys(), user('task'), ...round('bash', 'out')];
      const i = input(history, 100_000);
      const result = await plan(maskingStrategy.create(params()), i);
      expect(result.messages).toBe(history);
      expect(result.events).toEqual([]);
    });

    it('never masks the results of the latest assistant turn (the model has not seen them)', async () => {
      const history = [sys(), user('task'), ...parallel([big('x', 400), big('y', 400)])];
      const window = Math.ceil(counter.countContext(history) / 0.8);
      const result = await plan(maskingStrategy.create(params('hardThreshold=0.95')), input(history, window));
      expect(result.messages).toBe(history);
    });

    it('masks already-masked outputs only once across steps', async () => {
      const history = [sys(), user('task'), ...round('bash', big('a')), ...round('bash', big('b')), ...round('bash', 'x')];
      const window = Math.ceil(counter.countContext(history) / 0.8);
      const run = maskingStrategy.create(params('hardThreshold=0.95'));
      const first = await plan(run, input(history, window));
      const second = await plan(run, input(first.messages, window, { step: 1, last: { promptTokens: counter.countContext(first.messages), sentCount: first.messages.length } }));
      expect(first.events.some((e) => e.kind === 'masked')).toBe(true);
      expect(second.events.filter((e) => e.kind === 'masked')).toEqual([]);
    });
  });

  describe('placeholders', () => {
    const call = (name: string, args: object) => ({ id: 'c1', name, arguments: JSON.stringify(args) });
    const result = (name: string, content: string) => toolMessage({ id: 't', toolCallId: 'c1', name, content });

    it('describes file reads with path, line count and first line', async () => {
      const text = placeholder(result('read_file', '\nfn main() {\n  println!();\n}'), call('read_file', { path: 'src/main.rs' }));
      expect(text).toBe('[file_read result masked -- src/main.rs, 4 lines, starts with: fn main() {]');
    });
    it('treats an editor "view" as a read and other editor commands as writes', async () => {
      expect(placeholder(result('str_replace_editor', 'a\nb'), call('str_replace_editor', { command: 'view', path: '/x.py' }))).toMatch(/^\[file_read result masked -- \/x.py, 2 lines/);
      expect(placeholder(result('str_replace_editor', 'File created'), call('str_replace_editor', { command: 'create', path: '/x.py' }))).toBe('[file_write result masked -- /x.py, 12 bytes]');
    });
    it('gives shell outputs their exit code from any common shape', async () => {
      expect(exitCode('<returncode>2</returncode>\n<output>x</output>')).toBe(2);
      expect(exitCode('{"exit_code": 1, "stdout": ""}')).toBe(1);
      expect(exitCode('ok\n[Command finished with exit code 0]')).toBe(0);
      expect(placeholder(result('bash', '<returncode>0</returncode>\n<output>\nhi\n</output>'), undefined)).toBe('[bash result masked -- exit_code=0, 4 lines, 48 bytes of output]');
    });
    it('falls back to a byte count for unknown tools', async () => {
      expect(placeholder(result('search_web', 'abc'), undefined)).toBe('[search_web result masked -- 3 bytes of output]');
    });
    it('truncates long first lines at 60 characters', async () => {
      expect(placeholder(result('read_file', 'x'.repeat(80)), undefined)).toContain(`starts with: ${'x'.repeat(60)}...]`);
    });
  });

  describe('hard threshold and restart', () => {
    const thought = 'I will reason about this at length. '.repeat(40);
    const longRounds = () => [...round('bash', 'ok', {}, thought), ...round('bash', 'ok', {}, thought), ...round('bash', 'ok', {}, thought)];

    it('injects the wind-down message, then restarts with the system prompt, marker and carryover', async () => {
      const system = sys('Be careful.');
      // Reasoning, not outputs, fills the context: maskingStrategy cannot bring it under the hard threshold.
      const history = [system, user('task'), ...longRounds()];
      const window = Math.ceil(counter.countContext(history) / 0.93);
      const run = maskingStrategy.create(params('carryoverTurns=1'));
      const first = await plan(run, input(history, window, { sessionSteps: 3 }));
      const windDown = first.messages.at(-1)!;
      expect(windDown.role).toBe('system');
      expect(windDown.content).toMatch(/^\[Context window 93% full \(~\d+ tokens remaining\)\. Please wrap up/);
      expect(first.events.map((e) => e.kind)).toEqual(['wind_down']);
      expect(first.newSession).toBe(false);

      const appended = [...first.messages, ...round('bash', 'final output')];
      const second = await plan(run, input(appended, window, { step: 1, sessionSteps: 4, last: { promptTokens: 100, sentCount: first.messages.length } }));
      expect(second.newSession).toBe(true);
      expect(second.messages[0]).toBe(system);
      expect(second.messages[1]!.content).toBe(restartMarker(2, 4));
      // SWE-style: the task plus the last complete round, and no wind-down message carried.
      expect(second.messages.slice(2).map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
      expect(second.messages.slice(2)[0]!.content).toBe('task');
      expect(second.messages.at(-1)!.content).toBe('final output');
      expect(second.events.map((e) => e.kind)).toContain('restart');
      expect(checkPairing(second.messages)).toEqual([]);
    });

    it('restarts at once when even the wind-down exchange would not fit the window (seed Pitfall 6)', async () => {
      const history = [sys(), user('task'), ...longRounds()];
      const window = Math.ceil(counter.countContext(history) / 0.995);
      const result = await plan(maskingStrategy.create(params('carryoverTurns=1')), input(history, window, { sessionSteps: 3 }));
      expect(result.newSession).toBe(true);
      expect(result.events.map((e) => e.kind)).toEqual(['restart']);
      expect(result.messages.some((m) => m.content.startsWith('[Context window'))).toBe(false);
      expect(counter.countContext(result.messages)).toBeLessThan(window);
    });

    it('stops when max_restarts is reached, or at the hard threshold with autoRestart=false', async () => {
      const history = [sys(), user('task'), ...round('bash', big('a', 50))];
      const window = Math.ceil(counter.countContext(history) / 0.95);
      for (const [assignment, reason] of [
        ['maxRestarts=0', /max_restarts \(0\) reached/],
        ['autoRestart=false', /autoRestart=false/],
      ] as const) {
        const run = maskingStrategy.create(params(assignment));
        const first = await plan(run, input(history, window));
        const second = await plan(run, input([...first.messages, say('ok')], window, { step: 1 }));
        expect((second).stop).toMatch(reason);
      }
    });

    it('formats the seed messages', async () => {
      expect(windDownMessage(0.913, 2800)).toBe(
        '[Context window 91% full (~2800 tokens remaining). Please wrap up your current task and write any important state to workspace files. The session will restart shortly.]',
      );
      expect(restartMarker(3, 12)).toBe('[Session restarted. Session #3. Previous session ran 12 turns. Check your workspace files for progress state.]');
    });
  });

  describe('carryover', () => {
    it('carries the last N complete cycles of a chat', async () => {
      const c1 = [user('q1'), ...round('read_file', 'r1'), say('a1')];
      const c2 = [user('q2'), say('a2')];
      const c3 = [user('q3'), ...round('bash', 'r3'), ...round('bash', 'r3b'), say('a3')];
      const history = [sys(), ...c1, ...c2, ...c3];
      expect(carryover(history, 2)).toEqual([...c2, ...c3]);
      expect(carryover(history, 5)).toEqual([...c1, ...c2, ...c3]);
      expect(carryover(history, 0)).toEqual([]);
    });

    it('carries a cycle in progress on top of the N complete ones: its opener plus its last N rounds', async () => {
      const done = [user('q1'), say('a1')];
      const r = [round('bash', '1'), round('bash', '2'), parallel(['3a', '3b'])];
      const history = [sys(), ...done, user('q2'), ...r.flat()];
      expect(carryover(history, 2)).toEqual([...done, history[3], ...r[1]!, ...r[2]!]);
      expect(carryover(history, 1)).toEqual([...done, history[3], ...r[2]!]);
    });

    // Regression: the cycle in progress counted as one of the N, so carryoverTurns=5 carried 4 complete cycles.
    it('carries N COMPLETE cycles plus the one in progress, parallel calls whole (seed 000)', async () => {
      const complete = [1, 2, 3, 4].map((i) => [user(`q${i}`), ...parallel([`${i}a`, `${i}b`, `${i}c`]), ...round('read_file', `r${i}`), say(`a${i}`)]);
      const opener = user('q5');
      const inProgress = [round('bash', '5'), parallel(['5a', '5b'])];
      const history = [sys(), ...complete.flat(), opener, ...inProgress.flat()];
      expect(carryover(history, 2)).toEqual([...complete[2]!, ...complete[3]!, opener, ...inProgress[0]!, ...inProgress[1]!]);
      expect(carryover(history, 3)).toEqual([...complete.slice(1).flat(), opener, ...inProgress.flat()]);
      expect(checkPairing(carryover(history, 2))).toEqual([]);
    });

    it('drops strategy-inserted system messages and never starts on a tool result', async () => {
      const history = [sys(), user('task'), ...round('bash', '1'), sys('[wind-down]'), ...parallel(['a', 'b', 'c'])];
      const carried = carryover(history, 1);
      expect(carried.some((m) => m.role === 'system')).toBe(false);
      expect(carried[0]!.role).toBe('user');
      expect(checkPairing(carried)).toEqual([]);
    });
  });

  describe('context size', () => {
    it('projected counts what was appended since the last request; last-prompt does not', async () => {
      const history = [sys(), user('task'), ...round('bash', big('a', 300))];
      const window = 2 * counter.countContext(history);
      const last = { promptTokens: 10, sentCount: 2 }; // the big result was appended after the last request
      const projected = await plan(maskingStrategy.create(params('softThreshold=0.3', 'hardThreshold=0.95')), input([...history, ...round('bash', 'x')], window, { last }));
      const literal = await plan(maskingStrategy.create(params('softThreshold=0.3', 'hardThreshold=0.95', 'measure=last-prompt')), 
        input([...history, ...round('bash', 'x')], window, { last }),
      );
      expect(projected.events.some((e) => e.kind === 'masked')).toBe(true);
      expect(literal.events).toEqual([]);
    });

    it('falls back to the local count with one warning when the backend reports no usage', async () => {
      const run = maskingStrategy.create(params());
      const history = [sys(), user('task'), ...round('bash', 'x')];
      const a = await plan(run, input(history, 100_000, { last: { promptTokens: undefined, sentCount: 2 } }));
      const b = await plan(run, input(history, 100_000, { last: { promptTokens: undefined, sentCount: 2 } }));
      expect(a.events.map((e) => e.kind)).toEqual(['warning']);
      expect(b.events).toEqual([]);
    });
  });

  describe('parameters', () => {
    it('has the seed defaults', async () => {
      expect(params()).toEqual({ softThreshold: 0.7, hardThreshold: 0.9, carryoverTurns: 5, maxRestarts: 'unlimited', autoRestart: true, measure: 'projected' });
    });
    it('rejects out-of-range values and soft >= hard, naming the flag', async () => {
      expect(() => params('softThreshold=1.5')).toThrow('--param softThreshold=1.5: masking.softThreshold must be a fraction in (0, 1]');
      expect(() => params('carryoverTurns=-1')).toThrow(/carryoverTurns must be an integer in \[0, 1000\]/);
      expect(() => params('softThreshold=0.95')).toThrow(/softThreshold \(0.95\) must be below hardThreshold \(0.9\)/);
      expect(() => params('nope=1')).toThrow(/no selected strategy has a parameter "nope"/);
      expect(params('maxRestarts=unlimited', 'maxRestarts=3')['maxRestarts']).toBe(3);
    });
  });
});
