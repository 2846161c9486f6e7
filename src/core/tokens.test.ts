import fc from 'fast-check';
import { countTokens as cl100kCount } from 'gpt-tokenizer/encoding/cl100k_base';
import { countTokens as o200kCount } from 'gpt-tokenizer/encoding/o200k_base';
import { beforeAll, describe, expect, it } from 'vitest';
import { appendOnlyCopy } from './append-only.js';
import { assistantMessage, strategyOrigin, systemMessage, toolMessage, userMessage, withContent } from './messages.js';
import {
  charsPerFour,
  contextCounting,
  counterFrom,
  countRequest,
  createTokenCounter,
  ENCODINGS,
  MAX_RUN_CHARS,
  PER_CONTEXT_TOKENS,
  PER_MESSAGE_TOKENS,
  PER_TOOL_CALL_TOKENS,
  runCuts,
  withTools,
  type TokenCounter,
} from './tokens.js';
import { toolsText, type ToolDefinition } from './tools.js';

// ---------------------------------------------------------------------------------------------------
// Named fixtures.
// ---------------------------------------------------------------------------------------------------

const KNOWN_TEXTS = [
  'hello world',
  'The quick brown fox jumps over the lazy dog.',
  'def add(a, b):\n    return a + b\n',
  'Ünïcødé, 漢字 and emoji 😀👩‍💻',
  '{"path": "/repo/src/index.ts", "line": 42}',
  ' '.repeat(17),
] as const;

const WITH_SPECIAL = 'log line 1\n<|endoftext|>\nlog line 2 <|im_start|> <|fim_prefix|>';

/** A reference count that never throws on special-token text, like the counter's. */
const noSpecial = { disallowedSpecial: new Set<string>() };
const reference = {
  o200k_base: (text: string) => o200kCount(text, noSpecial),
  cl100k_base: (text: string) => cl100kCount(text, noSpecial),
} as const;

const SYSTEM = systemMessage({ id: 'm0', content: 'You are a careful coding agent.' });
const TASK = userMessage({ id: 'm1', content: 'Fix the failing test in src/add.ts.' });
const CALLS = assistantMessage({
  id: 'm2',
  content: 'Let me look.',
  toolCalls: [
    { id: 'call_1', name: 'read_file', arguments: '{"path":"src/add.ts"}' },
    { id: 'call_2', name: 'bash', arguments: '{"command":"npm test"}' },
  ],
});
const CALLS_NO_TEXT = assistantMessage({ id: 'm3', content: '', toolCalls: [{ id: 'call_3', name: 'bash', arguments: '{}' }] });
const RESULT = toolMessage({ id: 'm4', toolCallId: 'call_1', name: 'read_file', content: 'export const add = (a, b) => a - b;' });
const EMPTY_USER = userMessage({ id: 'm5', content: '' });
const CONTEXT = [SYSTEM, TASK, CALLS, RESULT] as const;

/** A counter over chars4 whose calls we can see. */
function spyCounter(): { counter: TokenCounter; seen: string[] } {
  const seen: string[] = [];
  const counter = counterFrom('chars4', (text) => {
    seen.push(text);
    return charsPerFour(text);
  });
  return { counter, seen };
}

// ---------------------------------------------------------------------------------------------------

describe('tokens', () => {
  let o200k: TokenCounter;
  let cl100k: TokenCounter;
  beforeAll(async () => {
    [o200k, cl100k] = await Promise.all([createTokenCounter('o200k_base'), createTokenCounter('cl100k_base')]);
  });

  describe('createTokenCounter', () => {
    it('defaults to o200k_base', async () => {
      const counter = await createTokenCounter();
      expect(counter.encoding).toBe('o200k_base');
      expect(counter.countText(KNOWN_TEXTS[1])).toBe(reference.o200k_base(KNOWN_TEXTS[1]));
    });

    it.each(ENCODINGS)('makes a counter for %s', async (encoding) => {
      const counter = await createTokenCounter(encoding);
      expect(counter.encoding).toBe(encoding);
      expect(counter.stats).toEqual({ texts: 0, chars: 0 });
    });
  });

  describe('countText', () => {
    describe('o200k_base', () => {
      it('sanity: "hello world" is 2 tokens', () => {
        expect(o200k.countText('hello world')).toBe(2);
      });

      it.each(KNOWN_TEXTS)('matches gpt-tokenizer for %j', (text) => {
        expect(o200k.countText(text)).toBe(reference.o200k_base(text));
      });
    });

    describe('cl100k_base', () => {
      it('sanity: "hello world" is 2 tokens', () => {
        expect(cl100k.countText('hello world')).toBe(2);
      });

      it.each(KNOWN_TEXTS)('matches gpt-tokenizer for %j', (text) => {
        expect(cl100k.countText(text)).toBe(reference.cl100k_base(text));
      });

      it('differs from o200k_base on non-English text (the encodings really differ)', () => {
        const text = 'Привет, мир! これは日本語のテキストです。';
        expect(cl100k.countText(text)).not.toBe(o200k.countText(text));
      });
    });

    describe('special-token text', () => {
      it('gpt-tokenizer itself throws on <|endoftext|> by default (why the counter disables the check)', () => {
        expect(() => o200kCount(WITH_SPECIAL)).toThrow(/endoftext/);
      });

      it.each(['o200k_base', 'cl100k_base'] as const)('%s counts <|endoftext|> as plain text instead of throwing', (encoding) => {
        const counter = encoding === 'o200k_base' ? o200k : cl100k;
        expect(() => counter.countText(WITH_SPECIAL)).not.toThrow();
        expect(counter.countText(WITH_SPECIAL)).toBe(reference[encoding](WITH_SPECIAL));
        // As text, the marker is several ordinary tokens, not the one special token.
        expect(counter.countText('<|endoftext|>')).toBeGreaterThan(1);
      });
    });

    it('counts the empty string as 0 without tokenizing it', () => {
      const { counter, seen } = spyCounter();
      expect(counter.countText('')).toBe(0);
      expect(seen).toEqual([]);
      expect(counter.stats).toEqual({ texts: 0, chars: 0 });
    });

    describe('long runs (regression: BPE is quadratic in a piece, a 290k-character line took minutes)', () => {
      /** The segments a text is counted in. */
      const segments = (text: string): string[] => {
        const cuts = [0, ...runCuts(text), text.length];
        return cuts.slice(1).map((end, i) => text.slice(cuts[i], end));
      };
      /** The longest run of whitespace or of non-whitespace in `text`. */
      const longestRun = (text: string): number => Math.max(0, ...(text.match(/\s+|\S+/g) ?? []).map((run) => run.length));

      it('cuts nothing in text whose runs are all short, so its count is exactly the tokenizer\'s', () => {
        const prose = 'A line of prose.\n'.repeat(500);
        expect(runCuts(prose)).toEqual([]);
        expect(o200k.countText(prose)).toBe(reference.o200k_base(prose));
      });

      it.each([
        ['spaces', ' '.repeat(3000)],
        ['a separator line', '-='.repeat(2000)],
        ['base64-like', 'QUJD'.repeat(900)],
        ['CJK without spaces', '中文字符测试'.repeat(600)],
      ])('cuts %s into runs of at most MAX_RUN_CHARS, and the count stays within a few tokens per cut', (_name, text) => {
        const cuts = runCuts(text);
        expect(cuts.length).toBeGreaterThan(0);
        for (const segment of segments(text)) expect(longestRun(segment)).toBeLessThanOrEqual(MAX_RUN_CHARS);
        for (const counter of [o200k, cl100k]) {
          const exact = reference[counter.encoding as 'o200k_base' | 'cl100k_base'](text);
          expect(Math.abs(counter.countText(text) - exact)).toBeLessThanOrEqual(5 * cuts.length);
        }
      });

      it('counts a 2,000,000-character line without spaces (and 1,000,000 spaces) through the same bounded pieces', () => {
        expect(o200k.countText('-='.repeat(1_000_000))).toBeGreaterThan(100_000);
        expect(cl100k.countText(' '.repeat(1_000_000))).toBeGreaterThan(1000);
      });

      it('property: no run longer than the bound between cuts, no cut inside a surrogate pair, same text when joined', () => {
        const runs = fc.array(
          fc.tuple(fc.constantFrom(' ', '\n', 'a', '=', '😀', '中', 'xy'), fc.integer({ min: 1, max: 1500 })).map(([unit, n]) => unit.repeat(n)),
          { maxLength: 6 },
        );
        fc.assert(
          fc.property(runs, fc.integer({ min: 2, max: 1200 }), (parts, max) => {
            const text = parts.join('');
            const cuts = runCuts(text, max);
            const pieces = [0, ...cuts, text.length].slice(1).map((end, i, ends) => text.slice(i === 0 ? 0 : ends[i - 1], end));
            expect(pieces.join('')).toBe(text);
            for (const piece of pieces) expect(longestRun(piece)).toBeLessThanOrEqual(max + 1);
            for (const cut of cuts) expect(text.charCodeAt(cut) >= 0xdc00 && text.charCodeAt(cut) <= 0xdfff).toBe(false);
          }),
          { numRuns: 300 },
        );
      });
    });

    it('property: o200k_base never throws and is at most one token per UTF-8 byte', () => {
      fc.assert(
        fc.property(fc.string({ unit: 'binary', maxLength: 100 }), (text) => {
          const n = o200k.countText(text);
          expect(n).toBeGreaterThanOrEqual(text.length > 0 ? 1 : 0);
          expect(n).toBeLessThanOrEqual(Buffer.byteLength(text, 'utf8'));
        }),
        { numRuns: 100 },
      );
    });
  });

  describe('chars4 fallback', () => {
    it.each([
      ['', 0],
      ['a', 1],
      ['abcd', 1],
      ['abcde', 2],
      ['12345678', 2],
      ['😀', 1], // two UTF-16 units
    ] as const)('charsPerFour(%j) = %i', (text, expected) => {
      expect(charsPerFour(text)).toBe(expected);
    });

    it('property: ceil(length / 4)', async () => {
      const counter = await createTokenCounter('chars4');
      fc.assert(
        fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (text) => {
          expect(counter.countText(text)).toBe(Math.ceil(text.length / 4));
        }),
      );
    });
  });

  describe('countMessage', () => {
    it('adds the per-message framing to the content', () => {
      for (const message of [SYSTEM, TASK, RESULT]) {
        expect(o200k.countMessage(message)).toBe(PER_MESSAGE_TOKENS + reference.o200k_base(message.content));
      }
    });

    it('an empty message costs only its framing', () => {
      expect(o200k.countMessage(EMPTY_USER)).toBe(PER_MESSAGE_TOKENS);
    });

    it('adds each tool call\'s framing, name and arguments', () => {
      const expected =
        PER_MESSAGE_TOKENS +
        reference.o200k_base(CALLS.content) +
        CALLS.toolCalls.reduce((sum, c) => sum + PER_TOOL_CALL_TOKENS + reference.o200k_base(c.name) + reference.o200k_base(c.arguments), 0);
      expect(o200k.countMessage(CALLS)).toBe(expected);
      expect(o200k.countMessage(CALLS_NO_TEXT)).toBe(PER_MESSAGE_TOKENS + PER_TOOL_CALL_TOKENS + reference.o200k_base('bash') + reference.o200k_base('{}'));
    });

    it('exact chars4 arithmetic for a message with calls', () => {
      const { counter } = spyCounter();
      // 3 + ceil(12/4) + [3 + ceil(9/4) + ceil(21/4)] + [3 + ceil(4/4) + ceil(22/4)] = 3 + 3 + 12 + 10
      expect(counter.countMessage(CALLS)).toBe(28);
    });

    describe('cache', () => {
      it('counting the same message object twice tokenizes once', () => {
        const { counter, seen } = spyCounter();
        const first = counter.countMessage(CALLS);
        const stats = { ...counter.stats };
        expect(stats.texts).toBe(5); // content, two names, two argument strings
        expect(counter.countMessage(CALLS)).toBe(first);
        expect(counter.stats).toEqual(stats);
        expect(seen).toHaveLength(5);
      });

      it('counts an edited copy (same id, new content) afresh', () => {
        const { counter } = spyCounter();
        counter.countMessage(RESULT);
        const masked = withContent(RESULT, '[omitted]', strategyOrigin('masking', 'mask'));
        expect(counter.countMessage(masked)).toBe(PER_MESSAGE_TOKENS + charsPerFour('[omitted]'));
        expect(counter.stats.texts).toBe(2);
      });

      it('each counter has its own cache', () => {
        const a = spyCounter();
        const b = spyCounter();
        a.counter.countMessage(TASK);
        b.counter.countMessage(TASK);
        expect(a.seen).toEqual([TASK.content]);
        expect(b.seen).toEqual([TASK.content]);
      });

      it('a replay of growing contexts tokenizes each message once', () => {
        const { counter } = spyCounter();
        for (let n = 1; n <= CONTEXT.length; n++) counter.countContext(CONTEXT.slice(0, n));
        const chars = CONTEXT.reduce((sum, m) => sum + m.content.length, 0) + CALLS.toolCalls.reduce((s, c) => s + c.name.length + c.arguments.length, 0);
        expect(counter.stats).toEqual({ texts: 8, chars });
      });
    });
  });

  describe('countContext', () => {
    it('is the sum of the message counts plus the reply priming', () => {
      const sum = CONTEXT.reduce((total, m) => total + o200k.countMessage(m), 0);
      expect(o200k.countContext(CONTEXT)).toBe(sum + PER_CONTEXT_TOKENS);
    });

    it('an empty context costs only the priming', () => {
      expect(o200k.countContext([])).toBe(PER_CONTEXT_TOKENS);
    });

    it('counts a message that appears twice twice', () => {
      expect(cl100k.countContext([TASK, TASK])).toBe(2 * cl100k.countMessage(TASK) + PER_CONTEXT_TOKENS);
    });

    describe('remembering the last context (running totals)', () => {
      const POOL = [SYSTEM, TASK, CALLS, CALLS_NO_TEXT, RESULT, EMPTY_USER, withContent(RESULT, 'masked', strategyOrigin('masking', 'masked'))];
      const naive = (counter: TokenCounter, messages: readonly (typeof POOL)[number][]) => messages.reduce((sum, m) => sum + counter.countMessage(m), 0);
      /** One operation on the array being counted: append, edit in place, cut, or a fresh copy. */
      const operation = fc.oneof(
        fc.record({ op: fc.constant('push' as const), at: fc.nat(POOL.length - 1) }),
        fc.record({ op: fc.constant('set' as const), at: fc.nat(20), to: fc.nat(POOL.length - 1) }),
        fc.record({ op: fc.constant('cut' as const), at: fc.nat(20) }),
        fc.record({ op: fc.constant('copy' as const) }),
        fc.record({ op: fc.constant('history' as const), at: fc.nat(POOL.length - 1) }),
      );

      it('counts every context as the plain sum, whatever was counted before and changed since', async () => {
        const counter = await createTokenCounter('chars4');
        fc.assert(
          fc.property(fc.array(operation, { maxLength: 60 }), (ops) => {
            let messages: (typeof POOL)[number][] = [];
            const shared = appendOnlyCopy([]); // the replay's history: only ever appended to
            for (const o of ops) {
              if (o.op === 'history') {
                shared.push(POOL[o.at]!);
                expect(counter.countContext(shared)).toBe(PER_CONTEXT_TOKENS + naive(counter, shared));
                continue;
              }
              if (o.op === 'push') messages.push(POOL[o.at]!);
              else if (o.op === 'set' && o.at < messages.length) messages[o.at] = POOL[o.to]!;
              else if (o.op === 'cut') messages.length = Math.min(messages.length, o.at);
              else if (o.op === 'copy') messages = [...messages];
              expect(counter.countContext(messages)).toBe(PER_CONTEXT_TOKENS + naive(counter, messages));
            }
          }),
        );
      });

      it('looks up only the messages past the part shared with the last context', () => {
        let lookups = 0;
        const counter = counterFrom('chars4', charsPerFour);
        const countMessage = counter.countMessage;
        const { countContext } = contextCounting((m) => (lookups++, countMessage(m)));
        const history = [SYSTEM, TASK, CALLS, RESULT];
        countContext(history);
        lookups = 0;
        countContext([...history, EMPTY_USER]);
        expect(lookups).toBe(1);
      });

      it('goes on from either of the last two contexts: the history and an edit of it, counted in turn, cost their new messages', () => {
        let lookups = 0;
        const counter = counterFrom('chars4', charsPerFour);
        const countMessage = counter.countMessage;
        const { countContext } = contextCounting((m) => (lookups++, countMessage(m)));
        const history = appendOnlyCopy([SYSTEM, TASK, CALLS, RESULT]);
        const masked = withContent(RESULT, 'masked', strategyOrigin('masking', 'masked'));
        const edited = () => history.map((m) => (m === RESULT ? masked : m));
        countContext(history);
        countContext(edited());
        history.push(EMPTY_USER);
        lookups = 0;
        expect(countContext(history)).toBe(PER_CONTEXT_TOKENS + history.reduce((n, m) => n + countMessage(m), 0));
        expect(lookups).toBe(1);
        lookups = 0;
        const next = edited();
        expect(countContext(next)).toBe(PER_CONTEXT_TOKENS + next.reduce((n, m) => n + countMessage(m), 0));
        expect(lookups).toBe(1);
      });

      it('takes the counted part of the same append-only array as unchanged: nothing of it is compared again', () => {
        let lookups = 0;
        const counter = counterFrom('chars4', charsPerFour);
        const countMessage = counter.countMessage;
        const { countContext } = contextCounting((m) => (lookups++, countMessage(m)));
        const history = appendOnlyCopy([SYSTEM, TASK]);
        const before = countContext(history);
        history.push(CALLS, RESULT);
        lookups = 0;
        const after = countContext(history);
        expect(lookups).toBe(2);
        expect(after).toBe(before + countMessage(CALLS) + countMessage(RESULT));
        // What it trusts: an edit in place, which the array's owner promised never to make, goes unseen.
        history[0] = EMPTY_USER;
        expect(countContext(history)).toBe(after);
        expect(countContext([...history])).toBe(after - countMessage(SYSTEM) + countMessage(EMPTY_USER));
      });
    });
  });

  describe('tool definitions (withTools, countRequest)', () => {
    const TOOLS: readonly ToolDefinition[] = [
      { name: 'bash', description: 'Run a shell command.', parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] } },
      { name: 'finish' },
    ];
    const SUMMARY_REQUEST = [SYSTEM, userMessage({ id: 's0', content: 'Summarize: the agent read src/add.ts.' })];

    it('a counter has no tool tokens of its own', () => {
      expect(o200k.toolTokens).toBe(0);
      expect(withTools(o200k, undefined)).toBe(o200k);
      expect(withTools(o200k, [])).toBe(o200k);
    });

    it('adds the definitions text to every context, counted once for the counter (a fixed cost per request)', () => {
      const { counter, seen } = spyCounter();
      const tooled = withTools(counter, TOOLS);
      const tools = charsPerFour(toolsText(TOOLS));
      expect(seen).toEqual([toolsText(TOOLS)]);
      expect(tooled.toolTokens).toBe(tools);
      expect(tooled.countContext([])).toBe(PER_CONTEXT_TOKENS + tools);
      expect(tooled.countContext(CONTEXT)).toBe(counter.countContext(CONTEXT) + tools);
      tooled.countContext([...CONTEXT, EMPTY_USER]);
      expect(seen.filter((text) => text === toolsText(TOOLS))).toHaveLength(1);
      expect(tooled.countMessage(TASK)).toBe(counter.countMessage(TASK));
    });

    it('the text is each definition as JSON {name, description, parameters}, absent fields left out', () => {
      expect(toolsText(TOOLS)).toBe(
        '{"name":"bash","description":"Run a shell command.","parameters":{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}}\n{"name":"finish"}',
      );
    });

    it('counts the tools in agent requests and in any request holding tool calls or results; a plain-text summary request sends none', () => {
      const tooled = withTools(o200k, TOOLS);
      expect(countRequest(tooled, [SYSTEM, TASK], 'agent')).toBe(o200k.countContext([SYSTEM, TASK]) + tooled.toolTokens);
      expect(countRequest(tooled, [...CONTEXT, SUMMARY_REQUEST[1]!], 'summary')).toBe(tooled.countContext([...CONTEXT, SUMMARY_REQUEST[1]!]));
      expect(countRequest(tooled, SUMMARY_REQUEST, 'summary')).toBe(o200k.countContext(SUMMARY_REQUEST));
      expect(countRequest(o200k, SUMMARY_REQUEST, 'summary')).toBe(o200k.countContext(SUMMARY_REQUEST));
    });
  });
});
