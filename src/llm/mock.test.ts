import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { composedUserMessage, quote, type TextPart } from '../core/composed-text.js';
import { extractFacts } from '../core/facts.js';
import { assistantMessage, strategyOrigin, systemMessage, userMessage, type Message } from '../core/messages.js';
import { PER_MESSAGE_TOKENS, createTokenCounter, type TokenCounter } from '../core/tokens.js';
import { createMockBackend, describeMock, MOCK_DEFAULTS, type MockOptions } from './mock.js';
import type { ChatRequest, ExpectedAnswer } from '../core/backend.js';

let counter: TokenCounter;
beforeAll(async () => {
  counter = await createTokenCounter('o200k_base');
});

// Fixtures: a span whose lines carry distinct facts (a path, an identifier, a number each), and an instruction.
const FACT_LINES = Array.from({ length: 60 }, (_, i) => `opened src/module_${i}/handler_${i}.py at line ${1000 + i}`);
/**
 * One fact per line, so a line is kept exactly when its fact is. Spread-out keys: seededUnit is far
 * from uniform for keys that differ only in their last characters (see core/facts.test.ts).
 */
const SINGLE_FACT_LINES = Array.from({ length: 200 }, (_, i) => `measured item_${i * 7919}`);
const PLAIN_LINES = ['ok', 'I will look at it now.', 'Done with that part.'];
const SECTIONS: ExpectedAnswer = { sections: ['Goal', 'Completed Work', 'Remaining Tasks', 'Do Not Redo', 'Key Decisions'] };

const span = (lines: readonly string[]): Message[] => [
  systemMessage({ id: 's', content: 'System: see config/system_prompt.yaml (never summarized)' }),
  userMessage({ id: 'u', content: lines.slice(0, lines.length / 2).join('\n') }),
  assistantMessage({ id: 'a', content: lines.slice(lines.length / 2).join('\n'), toolCalls: [{ id: 'c1', name: 'bash', arguments: '{"command":"cat tools/build_index.sh"}' }] }),
];
const instruction = userMessage({ id: 'i', content: 'Summarize the above. Mention instruction_only_fact.py.' });

const request = (lines: readonly string[] = FACT_LINES, expect: ExpectedAnswer | null = SECTIONS, purpose = 'summary'): ChatRequest => ({
  messages: [...span(lines), instruction],
  purpose,
  expect: expect ?? undefined,
});

async function answer(options: MockOptions, req: ChatRequest = request()): Promise<string> {
  return (await createMockBackend(counter, options).complete(req)).message.content;
}

/** The "- line" entries of an answer. */
const bullets = (text: string): string[] => text.split('\n').filter((l) => l.startsWith('- '));

describe('mock LLM', () => {
  describe('determinism', () => {
    it('gives the same text for the same request, on one backend or two', async () => {
      const backend = createMockBackend(counter, { recall: 0.5 });
      const first = await backend.complete(request());
      const second = await backend.complete(request());
      expect(second.message.content).toBe(first.message.content);
      expect(await answer({ recall: 0.5 })).toBe(first.message.content);
      expect(second.message.id).not.toBe(first.message.id); // ids stay unique per answer
    });

    it('draws another subset of facts under another seed', async () => {
      const draw = (seed: number) => answer({ recall: 0.5, seed, summaryTokens: 100_000 }, request(SINGLE_FACT_LINES));
      expect(await draw(2)).not.toBe(await draw(1));
    });
  });

  describe('recall', () => {
    it('recall 0 keeps no fact line: the headings alone', async () => {
      const text = await answer({ recall: 0 });
      expect(bullets(text)).toEqual([]);
      expect(text).toBe(SECTIONS.sections.map((h) => `## ${h}`).join('\n'));
    });

    it('recall 1 keeps every line that carries a fact (within budget), each once, and no plain line', async () => {
      const text = await answer({ recall: 1, summaryTokens: 100_000 }, request([...FACT_LINES, ...PLAIN_LINES, FACT_LINES[0]!]));
      const kept = bullets(text).map((l) => l.slice(2));
      expect(new Set(kept)).toEqual(new Set([...FACT_LINES, '{"command":"cat tools/build_index.sh"}']));
      expect(kept).toHaveLength(FACT_LINES.length + 1); // the repeated line adds no new fact
    });

    it('keeps about `recall` of the lines that carry one fact each', async () => {
      for (const recall of [0.2, 0.5, 0.8]) {
        const kept = bullets(await answer({ recall, summaryTokens: 100_000 }, request(SINGLE_FACT_LINES))).length - 1; // minus the call's arguments
        expect(Math.abs(kept / SINGLE_FACT_LINES.length - recall)).toBeLessThan(0.1);
      }
    });

    // Regression: a line was kept whole when ANY of its facts passed the draw, so a fact sharing its
    // line survived about 1 - (1 - recall)^k of the time; dropped facts are now cut out of kept lines.
    it('lets each fact survive with probability `recall`, even on lines with several facts', async () => {
      const text = await answer({ recall: 0.5, summaryTokens: 100_000 });
      const facts = FACT_LINES.flatMap((line) => extractFacts(line));
      const survived = facts.filter((fact) => text.includes(fact)).length;
      expect(Math.abs(survived / facts.length - 0.5)).toBeLessThan(0.15);
    });

    it('summarizes the span only: neither the system prompt nor the instruction (the last message)', async () => {
      const text = await answer({ recall: 1, summaryTokens: 100_000 });
      expect(text).not.toContain('system_prompt.yaml');
      expect(text).not.toContain('instruction_only_fact.py');
      expect(text).toContain('tools/build_index.sh'); // tool-call arguments are part of the span
    });
  });

  describe('template', () => {
    it('writes every expected heading, in order, even under a budget too small for any line', async () => {
      const text = await answer({ recall: 1, summaryTokens: 1 });
      expect(text.split('\n')).toEqual(SECTIONS.sections.map((h) => `## ${h}`));
    });

    it('deals the kept lines across the sections in turn', async () => {
      const text = await answer({ recall: 1, summaryTokens: 100_000 }, request(FACT_LINES.slice(0, 6)));
      const sections = text.split(/^## .*$/m).slice(1).map((body) => bullets(body).length);
      expect(sections).toEqual([2, 2, 1, 1, 1]); // 7 lines (6 + the call's arguments) over 5 sections
    });

    it('wraps the answer in the expected tag', async () => {
      const text = await answer({ recall: 1 }, request(FACT_LINES, { sections: ['Goal'], wrap: 'checkpoint' }));
      expect(text.startsWith('<checkpoint>\n## Goal\n')).toBe(true);
      expect(text.endsWith('\n</checkpoint>')).toBe(true);
    });

    it('uses one "Summary" section when the request names no template', async () => {
      expect(await answer({ recall: 0 }, request(FACT_LINES, null))).toBe('## Summary');
    });
  });

  describe('length', () => {
    it.each([40, 100, 250, 800])('never writes more than summaryTokens=%i tokens', async (summaryTokens) => {
      const backend = createMockBackend(counter, { recall: 1, summaryTokens });
      for (const wrap of [undefined, 'checkpoint']) {
        const response = await backend.complete(request(FACT_LINES, { ...SECTIONS, wrap }));
        expect(counter.countText(response.message.content)).toBeLessThanOrEqual(summaryTokens);
        expect(response.usage.completionTokens).toBe(counter.countText(response.message.content));
      }
    });

    it('fills the budget: a larger one keeps more lines', async () => {
      const small = bullets(await answer({ recall: 1, summaryTokens: 150 })).length;
      const large = bullets(await answer({ recall: 1, summaryTokens: 600 })).length;
      expect(small).toBeGreaterThan(0);
      expect(large).toBeGreaterThan(small);
    });
  });

  describe('faults', () => {
    it('throws for the purposes in failPurposes, and only those', async () => {
      const backend = createMockBackend(counter, { failPurposes: ['summary'] });
      await expect(backend.complete(request())).rejects.toThrow('mock: injected failure of the summary request');
      const checkpoint = await backend.complete(request(FACT_LINES, SECTIONS, 'checkpoint'));
      expect(checkpoint.message.content).not.toBe('');
    });

    it('answers with a tool call and no text for the purposes in toolCallPurposes', async () => {
      const { message } = await createMockBackend(counter, { toolCallPurposes: ['checkpoint'] }).complete(request(FACT_LINES, SECTIONS, 'checkpoint'));
      expect(message.content).toBe('');
      expect(message.toolCalls).toEqual([{ id: `${message.id}:call`, name: 'bash', arguments: '{"command":"ls"}' }]);
      expect(message.origin).toEqual({ source: 'strategy', strategy: 'mock', action: 'checkpoint' });
    });
  });

  describe('agent requests', () => {
    it('replays the recorded turn with local usage, whatever the faults say', async () => {
      const recorded = assistantMessage({ id: 'rec', content: 'I will run the tests.', toolCalls: [{ id: 'c9', name: 'bash', arguments: '{"command":"pytest"}' }] });
      const messages = span(FACT_LINES);
      const backend = createMockBackend(counter, { failPurposes: ['agent'], toolCallPurposes: ['agent'] });
      const response = await backend.complete({ messages, purpose: 'agent', recorded });
      expect(response.message).toBe(recorded);
      expect(response.usageSource).toBe('local');
      expect(response.usage).toEqual({ promptTokens: counter.countContext(messages), completionTokens: counter.countMessage(recorded) - PER_MESSAGE_TOKENS });
    });
  });

  describe('assumptions', () => {
    it('states its settings for reports, with the documented defaults', () => {
      const backend = createMockBackend(counter);
      expect(backend.options).toEqual({ recall: 0.8, summaryTokens: 800, seed: 1 });
      expect(MOCK_DEFAULTS).toEqual({ recall: 0.8, summaryTokens: 800, seed: 1 });
      expect(describeMock(backend.options)).toContain('keep each fact of what they summarize with probability 0.8 (seed 1) and are at most 800 tokens long');
    });

    it('the fixture lines each carry facts (guards the fixtures above)', () => {
      FACT_LINES.forEach((line) => expect(extractFacts(line).length).toBeGreaterThan(0));
      SINGLE_FACT_LINES.forEach((line) => expect(extractFacts(line)).toHaveLength(1));
      PLAIN_LINES.forEach((line) => expect(extractFacts(line)).toEqual([]));
    });
  });

  it('summarizes a composed request (a summary request quoting messages) as it does the same text sent plain, for any quotes', async () => {
    const unit = fc.constantFrom('\n', ' ', 'opened ', 'src/a_b.py', 'line 4711', 'FooBar', 'x', '\n  ');
    const text = fc.string({ unit, maxLength: 12 });
    await fc.assert(
      fc.asyncProperty(fc.array(text, { minLength: 1, maxLength: 4 }), fc.array(fc.tuple(fc.boolean(), fc.nat(3), text), { maxLength: 8 }), async (quoted, layout) => {
        const owners = quoted.map((t, i) => userMessage({ id: `q${i}`, content: t }));
        const parts: TextPart[] = layout.map(([isQuote, i, literal]) => (isQuote ? quote(owners[i % owners.length]!, owners[i % owners.length]!.content) : literal));
        // One backend for both rounds and both forms: what it remembers of the quoted messages is reused.
        const backend = createMockBackend(counter);
        for (let round = 0; round < 2; round++) {
          const composed = composedUserMessage({ id: `c${round}`, origin: strategyOrigin('test', 'summary-request') }, parts);
          const plain = userMessage({ id: `p${round}`, content: composed.content });
          const ask = async (m: Message) => (await backend.complete({ messages: [m, instruction], purpose: 'summary', expect: SECTIONS })).message.content;
          expect(await ask(composed)).toBe(await ask(plain));
        }
      }),
      { numRuns: 200 },
    );
  });
});

