import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { appendOnlyCopy } from '../core/append-only.js';
import { assistantMessage, toolMessage, type AssistantMessage, type Message, type ToolMessage } from '../core/messages.js';
import { checkPairing } from '../core/pairing.js';
import { createTokenCounter, type TokenCounter } from '../core/tokens.js';
import { loadScenario } from '../scenarios/load.js';
import { parallel, round, sys, user, scenarioOf, sweScenarioMessages } from '../../test/helpers/history.js';
import { recordedReplay } from '../../test/helpers/replay.js';
import { strategyInput } from '../../test/helpers/strategy-input.js';
import { offloadStrategy } from './offload.js';
import { largeOutputPointer, RECOVERY_PROMPT } from './parts/offload-tiers.js';
import { createOffloadStore, type OffloadStore } from '../core/offload-store.js';
import { resolveStrategyParams, type RequestPlan, type StrategyInput } from '../core/strategy.js';

let counter: TokenCounter;
beforeAll(async () => {
  counter = await createTokenCounter('o200k_base');
});

const params = (...assignments: string[]) => resolveStrategyParams(offloadStrategy, assignments);

async function plan(messages: readonly Message[], window: number, assignments: string[] = [], extra: Partial<StrategyInput> = {}) {
  const files = extra.files ?? createOffloadStore();
  const p = await offloadStrategy.create(params(...assignments)).beforeRequest(strategyInput(counter, messages, window, { files, ...extra }));
  return { ...p, events: [...(p.events ?? [])], files };
}

/** `n` numbered lines, so a preview and a line count are easy to check. */
const lines = (n: number, label = 'row'): string => Array.from({ length: n }, (_, i) => `${label} ${i} some output text`).join('\n');
const writeCall = (name: string, args: Record<string, unknown>, output = 'ok'): Message[] => round(name, output, args, 'Writing.');
const noPrompt = 'recoveryPrompt=false';

/** A window that puts the context at `fraction` once tier 1 has offloaded (tier 2 looks after it). */
async function windowAfterTier1(history: readonly Message[], largeResultTokens: string, fraction: number): Promise<number> {
  const tier1 = await plan(history, 100_000_000, [noPrompt, largeResultTokens]);
  return Math.ceil(counter.countContext(tier1.messages) / fraction);
}

/** The store paths a pointer names in its read_file("...") instruction. */
const pointerPaths = (text: string): string[] => [...text.matchAll(/read_file\("([^"]+)"\)/g)].map((m) => m[1]!);

/** Every replaced message: its pointers resolve to exactly what it replaced. */
function expectReversible(before: readonly Message[], after: readonly Message[], files: OffloadStore): number {
  let pointers = 0;
  after.forEach((m, i) => {
    const original = before[i]!;
    if (m === original || m.role === 'system') return;
    expect(m.id).toBe(original.id);
    if (m.role === 'tool') {
      const [path] = pointerPaths(m.content);
      expect(files.read(path!)).toBe(original.content);
      pointers += 1;
    }
    if (m.role === 'assistant') {
      (m as AssistantMessage).toolCalls.forEach((call, j) => {
        const was = (original as AssistantMessage).toolCalls[j]!;
        expect({ id: call.id, name: call.name }).toEqual({ id: was.id, name: was.name });
        if (call.arguments === was.arguments) return;
        const values = Object.values(JSON.parse(call.arguments) as Record<string, unknown>);
        const paths = new Set(values.flatMap((v) => (typeof v === 'string' ? pointerPaths(v) : [])));
        expect(paths.size).toBe(1);
        expect(files.read([...paths][0]!)).toBe(was.arguments);
        pointers += 1;
      });
    }
  });
  return pointers;
}

describe('offload', () => {
  describe('tier 1: large tool results (seed: > 20,000 tokens, offloaded at once)', () => {
    it('offloads a result over 20,000 tokens at once, whatever the context pressure', async () => {
      const huge = Array.from({ length: 3000 }, (_, i) => `line ${i}: alpha beta gamma delta epsilon`).join('\n');
      expect(counter.countText(huge)).toBeGreaterThan(20_000);
      const history = [sys(), user('task'), ...round('bash', huge), ...round('bash', lines(20))];
      const result = await plan(history, 10_000_000, [noPrompt]);
      expect(result.events.map((e) => [e.kind, e.messageId])).toEqual([['offloaded', history[3]!.id]]);
      expect(result.messages[3]!.content).toMatch(/^\[Large output saved to \/tool_outputs\/bash_step0_call_\d+\.txt\]/);
      expect(result.messages[5]).toBe(history[5]); // small results stay
      expect(checkPairing(result.messages, { request: true })).toEqual([]);
    });

    it('shows the seed\'s 10-line preview and read-back pointer', async () => {
      const output = lines(30);
      const history = [sys(), user('task'), ...round('bash', output)];
      const result = await plan(history, 1_000_000, [noPrompt, 'largeResultTokens=50']);
      const path = result.files.list()[0]!;
      expect(result.messages[3]!.content).toBe(
        `[Large output saved to ${path}]\n\nPreview (first 10 lines):\n${lines(10)}\n... (20 more lines)\n\nUse read_file("${path}") to view full content.`,
      );
      expect(largeOutputPointer('/p', 'a\nb', 10)).toBe('[Large output saved to /p]\n\nPreview (first 10 lines):\na\nb\n\nUse read_file("/p") to view full content.');
    });

    it('clips preview lines, so a one-line result still shrinks', async () => {
      const history = [sys(), user('task'), ...round('bash', 'word '.repeat(10_000))];
      const result = await plan(history, 1_000_000, [noPrompt, 'largeResultTokens=100']);
      expect(result.messages[3]!.content.length).toBeLessThan(400);
      expect(result.files.read(result.files.list()[0]!)).toBe(history[3]!.content);
    });

    it('leaves results at or under the limit alone and never offloads a pointer again', async () => {
      const history = [sys(), user('task'), ...round('bash', lines(40))];
      const first = await plan(history, 1_000_000, [noPrompt, 'largeResultTokens=50']);
      const again = await plan(first.messages, 1_000_000, [noPrompt, 'largeResultTokens=50'], { step: 1 });
      expect(first.events).toHaveLength(1);
      expect(again.events).toEqual([]);
      expect(again.messages).toBe(first.messages);
      const untouched = await plan(history, 1_000_000, [noPrompt, 'largeResultTokens=unlimited']);
      expect(untouched.messages).toBe(history);
    });

    it('keeps paths from hostile tool names and call ids inside the store', async () => {
      const hostile = (name: string, id: string): Message[] => [
        assistantMessage({ id: `a-${id}`, content: '', toolCalls: [{ id, name, arguments: '{}' }] }),
        toolMessage({ id: `t-${id}`, toolCallId: id, name, content: lines(40) }),
      ];
      const history = [
        sys(),
        user('task'),
        ...hostile('../../etc/passwd', '../../../etc/shadow'),
        ...hostile('..\\..\\windows', '/abs/../../x'),
        ...hostile('bash', '..'),
        ...hostile('', ''),
      ];
      const result = await plan(history, 1_000_000, [noPrompt, 'largeResultTokens=50']);
      const paths = result.files.list();
      expect(paths).toHaveLength(4);
      for (const path of paths) {
        expect(path).toMatch(/^\/tool_outputs\/[^/]+$/);
        expect(path.split('/')).not.toContain('..');
      }
      expect(expectReversible(history, result.messages, result.files)).toBe(4);
    });

    it('never overwrites an original when two call ids sanitize alike', async () => {
      const history = [sys(), user('task'), ...parallel([lines(40, 'first'), lines(40, 'second')])];
      // Rename the two calls to ids that safeSegment maps to the same segment.
      const [call, r1, r2] = history.slice(2) as [AssistantMessage, ToolMessage, ToolMessage];
      const renamed = [
        ...history.slice(0, 2),
        assistantMessage({ id: call.id, content: '', toolCalls: [{ ...call.toolCalls[0]!, id: 'a/b' }, { ...call.toolCalls[1]!, id: 'a_b' }] }),
        toolMessage({ ...r1, toolCallId: 'a/b' }),
        toolMessage({ ...r2, toolCallId: 'a_b' }),
      ];
      const result = await plan(renamed, 1_000_000, [noPrompt, 'largeResultTokens=50']);
      expect(result.files.list()).toEqual(['/tool_outputs/bash_step0_a_b-2.txt', '/tool_outputs/bash_step0_a_b.txt']);
      expect(expectReversible(renamed, result.messages, result.files)).toBe(2);
    });
  });

  it("property: request after request, tier 1 with the run's memory sends what it sends looking at every message again", () => {
    // The memory skips what the last request shared with this one. Previews longer than the result
    // (previewLines=1000 on short lines) keep a result over the limit, a verdict that is looked at again.
    const turn = fc.record({ lines: fc.integer({ min: 1, max: 60 }), name: fc.constantFrom('bash', 'grep') });
    const setting = fc.record({ limit: fc.constantFrom(40, 200, 1000), style: fc.constantFrom('valis', 'deepagents'), preview: fc.constantFrom(0, 10, 1000), appendOnly: fc.boolean() });
    // Now and then the session's messages come back with an earlier result as it was recorded (what
    // a restart or a summary that keeps old turns hands over): it is looked at again.
    const restore = fc.array(fc.option(fc.nat(40), { nil: undefined }), { maxLength: 20 });
    fc.assert(
      fc.property(fc.array(turn, { minLength: 1, maxLength: 20 }), setting, restore, (shape, { limit, style, preview, appendOnly }, restores) => {
        const settings = [noPrompt, `largeResultTokens=${limit}`, `offloadStyle=${style}`, `previewLines=${preview}`];
        const remembering = offloadStrategy.create(params(...settings));
        const [files, again] = [createOffloadStore(), createOffloadStore()];
        const turns = shape.map(({ lines: n, name }, k) => round(name, lines(n, `${name}${k}`)));
        let messages: Message[] = [sys(), user('task')];
        let appendedFrom = 0;
        turns.forEach((next, step) => {
          const at = restores[step];
          const recorded = turns.flat().filter((m) => m.role === 'tool');
          if (at !== undefined && recorded.length > 0) {
            const original = recorded[at % recorded.length]!;
            const place = messages.findIndex((m) => m.id === original.id);
            if (place >= 0 && messages[place] !== original) messages = messages.map((m, i) => (i === place ? original : m));
          }
          const got = remembering.beforeRequest(strategyInput(counter, messages, 1_000_000, { files, step, appendedFrom })) as RequestPlan;
          const fresh = offloadStrategy.create(params(...settings)).beforeRequest(strategyInput(counter, messages, 1_000_000, { files: again, step, appendedFrom })) as RequestPlan;
          expect(got.messages).toEqual(fresh.messages);
          expect(got.events ?? []).toEqual(fresh.events ?? []);
          appendedFrom = got.messages.length;
          // As the runner does: the same array appended to in place when the plan sent it on, else a copy.
          if (appendOnly && got.messages === messages) messages.push(...next);
          else messages = appendOnly ? appendOnlyCopy(got.messages, next) : [...got.messages, ...next];
        });
      }),
      { numRuns: 200 },
    );
  });

  describe('tier 2: file-write compaction (seed: above 85% of the window)', () => {
    const content = lines(60, 'def f');
    const edits = () => [
      sys(),
      user('task'),
      ...writeCall('write_file', { path: 'src/app.py', content }),
      ...writeCall('edit_file', { path: 'src/app.py', old_text: 'a', new_text: lines(40, 'patched') }, lines(30, 'diff')),
      ...round('bash', 'tests pass'),
    ];

    it('does nothing at or below compactionThreshold', async () => {
      const history = edits();
      const window = Math.ceil(counter.countContext(history) / 0.84);
      const result = await plan(history, window, [noPrompt]);
      expect(result.messages).toBe(history);
      expect(result.events).toEqual([]);
    });

    it('above it, replaces written content in the call ARGUMENTS with the seed\'s pointers, keeping ids and names', async () => {
      const history = edits();
      const window = Math.ceil(counter.countContext(history) / 0.9);
      const result = await plan(history, window, [noPrompt]);
      const write = result.messages[2] as AssistantMessage;
      const edit = result.messages[4] as AssistantMessage;
      expect(write).toMatchObject({ id: history[2]!.id, origin: { source: 'strategy', action: 'compacted-call' } });
      const writeArgs = JSON.parse(write.toolCalls[0]!.arguments) as Record<string, string>;
      expect(writeArgs['path']).toBe('src/app.py');
      expect(writeArgs['content']).toMatch(/^\[Content written to src\/app\.py\] Preview: def f 0 some output text\ndef f 1 .{50,}\.\.\. Original arguments saved: Use read_file\("\/tool_calls\/write_file_step0_call_\d+\.json"\) to view full content\.$/s);
      const editArgs = JSON.parse(edit.toolCalls[0]!.arguments) as Record<string, string>;
      expect(editArgs['old_text']).toBe('a');
      expect(editArgs['new_text']).toMatch(/^\[See src\/app\.py for content\] Original arguments saved: Use read_file\("\/tool_calls\//);
      expect(counter.countContext(result.messages)).toBeLessThan(counter.countContext(history));
      expect(checkPairing(result.messages, { request: true })).toEqual([]);
    });

    it('replaces long file-write results the model has seen, but not short ones, other tools\' or unseen ones', async () => {
      const history = [...edits(), ...writeCall('edit_file', { path: 'b.py', new_text: 'x' }, lines(30, 'unseen diff'))];
      const window = Math.ceil(counter.countContext(history) / 0.9);
      const result = await plan(history, window, [noPrompt]);
      expect(result.messages[5]!.content).toMatch(/^\[File operation completed successfully\. Use read_file\(\) to view current content\.\]\nOriginal output saved: Use read_file\("\/tool_outputs\/edit_file_step0_call_\d+\.txt"\)/);
      expect(result.messages[3]).toBe(history[3]); // "ok": short
      expect(result.messages[7]).toBe(history[7]); // bash
      expect(result.messages.at(-1)).toBe(history.at(-1)); // after the latest assistant turn
    });

    it('treats editor writes (str_replace_editor create / str_replace) as file writes, views not', async () => {
      const history = [
        sys(),
        user('task'),
        ...writeCall('str_replace_editor', { command: 'create', path: '/w/a.py', file_text: content }),
        ...writeCall('str_replace_editor', { command: 'str_replace', path: '/w/a.py', old_str: 'x', new_str: content }),
        ...writeCall('str_replace_editor', { command: 'view', path: '/w/a.py' }, lines(80)),
        ...round('bash', 'ok'),
      ];
      const window = Math.ceil(counter.countContext(history) / 0.9);
      const result = await plan(history, window, [noPrompt]);
      expect(result.events.map((e) => e.messageId)).toEqual([history[2]!.id, history[4]!.id]);
      expect(JSON.parse((result.messages[4] as AssistantMessage).toolCalls[0]!.arguments)).toMatchObject({ command: 'str_replace', old_str: 'x', new_str: expect.stringMatching(/^\[See \/w\/a\.py for content\]/) });
    });

    it('counts tool-call arguments and per-message framing (the seed\'s estimate ignores them)', async () => {
      // Written content lives only in arguments: the seed's content-only count sees almost nothing.
      const history = [sys(), user('task'), ...Array.from({ length: 6 }, (_, i) => writeCall('write_file', { path: `f${i}.py`, content: lines(30) })).flat()];
      const seedEstimate = history.reduce((sum, m) => sum + counter.countText(m.content), 0);
      const window = Math.ceil(counter.countContext(history) / 0.9);
      expect(seedEstimate).toBeLessThan(0.85 * window);
      const result = await plan(history, window, [noPrompt]);
      expect(result.events.filter((e) => e.detail.startsWith('tier 2'))).toHaveLength(6);
    });
  });

  // deepagents' FilesystemMiddleware (langchain-ai/deepagents, libs/deepagents/deepagents/middleware/
  // filesystem.py and _message_eviction.py): a result over tool_token_limit_before_evict (20,000) times
  // NUM_CHARS_PER_TOKEN (4) characters goes to /large_tool_results/<tool call id>, replaced by a
  // numbered 5-line head and 5-line tail; TOOLS_EXCLUDED_FROM_EVICTION are never evicted.
  describe('offloadStyle=deepagents (deepagents FilesystemMiddleware eviction)', () => {
    const deepagents = ['offloadStyle=deepagents', 'previewLines=5', noPrompt];

    it('evicts a result over 4 characters a token, with a numbered head and tail under /large_tool_results/<call id>', async () => {
      const output = lines(30);
      const history = [sys(), user('task'), ...round('bash', output)];
      const callId = (history[3] as ToolMessage).toolCallId;
      const limit = Math.floor(output.length / 4); // output.length > 4 * limit
      const result = await plan(history, 1_000_000, [...deepagents, `largeResultTokens=${limit}`]);
      const path = `/large_tool_results/${callId}`;
      expect(result.files.list()).toEqual([path]);
      expect(result.files.read(path)).toBe(output);
      const numbered = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `${String(from + i + 1).padStart(6)}\trow ${from + i} some output text`).join('\n');
      expect(result.messages[3]!.content).toBe(
        `Tool result too large: the result of tool call ${callId} was saved at ${path}.\n` +
          'Read it back with read_file, a part at a time: give an offset and a limit (offset=0, limit=100 reads its first 100 lines).\n' +
          'Its first and last lines (a "... [N lines truncated] ..." line stands for the lines between them):\n\n' +
          `${numbered(0, 5)}\n... [20 lines truncated] ...\n${numbered(25, 30)}`,
      );
      // At 4 characters a token, not the tokenizer's count: one character less stays.
      const kept = await plan(history, 1_000_000, [...deepagents, `largeResultTokens=${Math.ceil(output.length / 4)}`]);
      expect(kept.messages).toBe(history);
    });

    it('never evicts the results of ls, glob, grep, read_file, edit_file and write_file', async () => {
      const excluded = ['ls', 'glob', 'grep', 'read_file', 'edit_file', 'write_file'];
      const history = [sys(), user('task'), ...excluded.flatMap((name) => round(name, lines(400))), ...round('execute', lines(400))];
      const result = await plan(history, 1_000_000, [...deepagents, 'largeResultTokens=100']);
      expect(result.events.map((e) => e.messageId)).toEqual([history.at(-1)!.id]);
      expect(result.files.list()).toEqual([`/large_tool_results/${(history.at(-1) as ToolMessage).toolCallId}`]);
    });

    it('has no tier 2: written content stays in the calls above compactionThreshold', async () => {
      const history = [sys(), user('task'), ...writeCall('write_file', { path: 'a.py', content: 'x = 1\n'.repeat(300) }), ...round('bash', 'ok')];
      const result = await plan(history, Math.ceil(counter.countContext(history) / 0.95), deepagents);
      expect(result.messages).toBe(history);
    });
  });

  describe('reversibility: every pointer resolves to exactly the original text', () => {
    it('holds for tier 1 and tier 2 together', async () => {
      const history = [
        sys(),
        user('task'),
        ...round('bash', lines(200)),
        ...writeCall('write_file', { path: 'a.py', content: lines(50) }),
        ...writeCall('edit_file', { path: 'a.py', new_text: lines(50) }, lines(40, 'diff')),
        ...parallel([lines(200, 'p1'), 'small']),
        ...round('bash', 'done'),
      ];
      const window = await windowAfterTier1(history, 'largeResultTokens=1000', 0.9);
      const result = await plan(history, window, [noPrompt, 'largeResultTokens=1000']);
      expect(expectReversible(history, result.messages, result.files)).toBe(5);
      expect(result.files.list()).toHaveLength(5);
    });
  });

  describe('events (the seed\'s compaction stats)', () => {
    it('reports each offload as an "offloaded" event with the tier, the file and tokens before/after', async () => {
      const history = [sys(), user('task'), ...round('bash', lines(200)), ...writeCall('write_file', { path: 'a.py', content: lines(80) }), ...round('bash', 'x')];
      const window = await windowAfterTier1(history, 'largeResultTokens=1000', 0.95);
      const result = await plan(history, window, [noPrompt, 'largeResultTokens=1000']);
      expect(result.events).toHaveLength(2);
      for (const e of result.events) {
        expect(e.kind).toBe('offloaded');
        expect(e.detail).toMatch(/^tier [12]: .* saved to \/tool_(outputs|calls)\//);
        expect(e.tokensAfter!).toBeLessThan(e.tokensBefore!);
        const m = history.find((h) => h.id === e.messageId)!;
        expect(e.tokensBefore).toBe(counter.countMessage(m));
      }
    });
  });

  describe('recovery prompt (seed: the system prompt explains recovery)', () => {
    it('appends the seed\'s segment to the system prompt once, keeping its id', async () => {
      const history = [sys('Be careful.'), user('task'), ...round('bash', 'x')];
      const first = await plan(history, 1_000_000);
      expect(first.messages[0]).toMatchObject({ id: history[0]!.id, content: `Be careful.\n${RECOVERY_PROMPT}` });
      expect(first.messages[0]!.content).toContain('Use `read_file("/tool_outputs/...")` to view full tool outputs');
      const second = await plan(first.messages, 1_000_000, [], { step: 1, systemPrompt: history[0] as never });
      expect(second.messages).toBe(first.messages);
      expect((await plan(history, 1_000_000, [noPrompt])).messages).toBe(history);
    });
  });

  describe('parameters', () => {
    it('has the seed defaults', () => {
      expect(params()).toEqual({ offloadStyle: 'valis', largeResultTokens: 20_000, compactionThreshold: 0.85, previewLines: 10, recoveryPrompt: true });
    });
    it('rejects values out of range, naming the flag', () => {
      expect(() => params('compactionThreshold=0')).toThrow(/offload\.compactionThreshold must be a fraction in \(0, 1\]/);
      expect(() => params('largeResultTokens=0')).toThrow(/largeResultTokens must be an integer >= 1 or "unlimited"/);
    });
  });

  describe('end to end', () => {
    it('replays a generated history with huge outputs: completes, every context well paired', async () => {
      const scenario = scenarioOf(sweScenarioMessages(20, 6000));
      const { run, requests } = await recordedReplay({ scenario, strategy: offloadStrategy, params: params('largeResultTokens=1000'), counter, model: 'gpt-4o', window: 16_384, batchId: 'b' });
      const contexts = requests.map((r) => r.messages);
      expect(run.summary.status).toBe('completed');
      expect(run.events.filter((e) => e.kind === 'offloaded')).toHaveLength(20);
      contexts.forEach((c) => expect(checkPairing(c, { request: true })).toEqual([]));
    });

    it('on a bundled OpenHands scenario at 16384: offloads, never breaks pairing, overflows without a lossy tier', async () => {
      const { scenario } = await loadScenario('scenarios/openhands-codeact-sonnet35/django__django-10880.json');
      const { run, requests } = await recordedReplay({ scenario, strategy: offloadStrategy, params: params(), counter, model: 'm', window: 16_384, batchId: 'b' });
      const contexts = requests.map((r) => r.messages);
      // Tiers 1-2 are reversible only: the seed's last resort is tier 3 (`summarization`).
      expect(run.summary.status).toBe('overflow');
      expect(run.events.filter((e) => e.kind === 'offloaded').length).toBeGreaterThan(0);
      expect(run.events.some((e) => e.kind === 'pairing_violation')).toBe(false);
      contexts.forEach((c) => expect(checkPairing(c, { request: true })).toEqual([]));
    });
  });
});
