import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { textMessage } from '../../test/helpers/text-messages.js';
import { assistantMessage, strategyOrigin, systemMessage, toolMessage, userMessage, withContent, type Message } from '../core/messages.js';
import { charsPerFour, counterFrom } from '../core/tokens.js';
import { archiveConversation } from '../strategies/parts/conversation-archive.js';
import { createOffloadStore, type OffloadStore } from '../core/offload-store.js';
import { largeOutputPointer, RECOVERY_PROMPT } from '../strategies/parts/offload-tiers.js';
import { summaryMessageText } from '../strategies/parts/summarizers/valis.js';
import { contextPointsAt, judgeProbe, passed, PROBE_HOWS, pointsAt, rereadTokens, scenarioMessageIds, type ProbeHow } from './probe-verdict.js';

// ---------------------------------------------------------------------------------------------------
// Named fixtures: a four-message scenario, the facts it plants, and what strategies make of it.
// ---------------------------------------------------------------------------------------------------

const SYSTEM = systemMessage({ id: 'm0000', content: 'You are a coding agent.' });
const TASK = userMessage({ id: 'm0001', content: 'Deploy the service to region eu-west-3.' });
const CALL = assistantMessage({ id: 'm0002', content: 'Reading the config.', toolCalls: [{ id: 'call_1', name: 'bash', arguments: '{"command":"cat deploy.ini"}' }] });
const CONFIG = ['[service]', 'owner = "Grace Hopper"', 'timeout = 4711', ...Array.from({ length: 20 }, (_, i) => `filler_${i} = ${i}`)].join('\n');
const RESULT = toolMessage({ id: 'm0003', toolCallId: 'call_1', name: 'bash', content: CONFIG });
const SCENARIO = [SYSTEM, TASK, CALL, RESULT] as const;
const SCENARIO_IDS = scenarioMessageIds(SCENARIO);

/** Facts the scenario plants, each where a probe would find it. */
const IN_TASK = 'eu-west-3';
const IN_ARGUMENTS = 'deploy.ini';
const IN_RESULT = 'timeout = 4711';
const QUOTED = 'owner = "Grace Hopper"'; // JSON-escaped in an archived .json file
const NOWHERE = 'us-east-1';

const OUTPUT_PATH = '/tool_outputs/bash_step1_call_1.txt';
/** Seed 002's tier-1 pointer with a 1-line preview: the timeout is not in it. */
const OFFLOADED = withContent(RESULT, largeOutputPointer(OUTPUT_PATH, CONFIG, 1), strategyOrigin('offload', 'offloaded-result'));
/** A 3-line preview: the timeout is. */
const OFFLOADED_WITH_PREVIEW = withContent(RESULT, largeOutputPointer(OUTPUT_PATH, CONFIG, 3), strategyOrigin('offload', 'offloaded-result'));
const MASKED = withContent(RESULT, '[bash output omitted]', strategyOrigin('masking', 'masked'));

const summary = (text: string): Message =>
  systemMessage({ id: 'summarization:summary:2', content: summaryMessageText(text), origin: strategyOrigin('summarization', 'summary') });
const SUMMARY_KEPT = summary('## Important Details\nThe config sets timeout = 4711.');
const SUMMARY_LOST = summary('## Important Details\nThe config was read.');
const CONTINUATION = userMessage({ id: 'continuation:seed:2', content: 'Continue. Known: timeout = 4711.', origin: strategyOrigin('continuation', 'continuation') });

/** A store holding `files` (path -> content), as strategies write them. */
function storeWith(files: Record<string, string>): OffloadStore {
  const store = createOffloadStore();
  for (const [path, content] of Object.entries(files)) store.write(path, content);
  return store;
}
const EMPTY = storeWith({});
const OFFLOAD_STORE = storeWith({ [OUTPUT_PATH]: CONFIG });

describe('probes', () => {
  describe('judgeProbe', () => {
    describe('verbatim', () => {
      it('finds the answer in scenario messages: the task, call arguments, a tool result', () => {
        expect(judgeProbe(IN_TASK, SCENARIO, EMPTY, SCENARIO_IDS)).toEqual({ how: 'verbatim' });
        expect(judgeProbe(IN_ARGUMENTS, SCENARIO, EMPTY, SCENARIO_IDS)).toEqual({ how: 'verbatim' });
        expect(judgeProbe(IN_RESULT, SCENARIO, EMPTY, SCENARIO_IDS)).toEqual({ how: 'verbatim' });
      });

      it("counts a strategy's edit of a scenario message (same id) as the scenario's: a preview that kept the fact", () => {
        const context = [SYSTEM, TASK, CALL, OFFLOADED_WITH_PREVIEW];
        expect(judgeProbe(IN_RESULT, context, OFFLOAD_STORE, SCENARIO_IDS)).toEqual({ how: 'verbatim' });
      });

      it('without the scenario ids the same edit reads as strategy text', () => {
        const context = [SYSTEM, TASK, CALL, OFFLOADED_WITH_PREVIEW];
        expect(judgeProbe(IN_RESULT, context, OFFLOAD_STORE, new Set())).toEqual({ how: 'summary' });
      });

      it('wins over a summary that also holds it', () => {
        expect(judgeProbe(IN_RESULT, [SYSTEM, SUMMARY_KEPT, RESULT], EMPTY, SCENARIO_IDS)).toEqual({ how: 'verbatim' });
      });
    });

    describe('summary', () => {
      it('finds the answer only in a message a strategy inserted', () => {
        expect(judgeProbe(IN_RESULT, [SYSTEM, SUMMARY_KEPT], EMPTY, SCENARIO_IDS)).toEqual({ how: 'summary' });
        expect(judgeProbe(IN_RESULT, [SYSTEM, CONTINUATION], EMPTY, SCENARIO_IDS)).toEqual({ how: 'summary' });
      });

      it('wins over an offloaded file that also holds it', () => {
        expect(judgeProbe(IN_RESULT, [SYSTEM, TASK, CALL, OFFLOADED, SUMMARY_KEPT], OFFLOAD_STORE, SCENARIO_IDS)).toEqual({ how: 'summary' });
      });
    });

    describe('recoverable', () => {
      it("names the offloaded file when the strategy's pointer to it is in the context", () => {
        const context = [SYSTEM, TASK, CALL, OFFLOADED];
        expect(OFFLOADED.content).not.toContain(IN_RESULT);
        expect(judgeProbe(IN_RESULT, context, OFFLOAD_STORE, SCENARIO_IDS)).toEqual({ how: 'recoverable', file: OUTPUT_PATH });
      });

      it('through a folder pointer: the summary names /conversation_history/, the archive holds the fact JSON-escaped', () => {
        const store = createOffloadStore();
        const saved = archiveConversation(store, 'conversation_step2', SCENARIO);
        // Keep only the .json (the markdown has the quotes unescaped): the match must see through JSON escapes.
        const jsonOnly = storeWith({ [saved.json]: store.read(saved.json)! });
        expect(store.read(saved.json)).not.toContain(QUOTED);
        expect(judgeProbe(QUOTED, [SYSTEM, SUMMARY_LOST], jsonOnly, SCENARIO_IDS)).toEqual({ how: 'recoverable', file: '/conversation_history/conversation_step2.json' });
      });

      it('names the smallest file that holds the answer (the cheapest re-read)', () => {
        const store = createOffloadStore();
        archiveConversation(store, 'conversation_step2', SCENARIO);
        expect(store.read('/conversation_history/conversation_step2.md')!.length).toBeLessThan(store.read('/conversation_history/conversation_step2.json')!.length);
        expect(judgeProbe(IN_RESULT, [SYSTEM, SUMMARY_LOST], store, SCENARIO_IDS)).toEqual({ how: 'recoverable', file: '/conversation_history/conversation_step2.md' });
      });

      it('accepts a pointer written without the leading slash', () => {
        const store = storeWith({ 'checkpoints/step-0003-compact.json': '{"scratchpad":"timeout = 4711"}' });
        const note = userMessage({ id: 'note', content: 'State saved in checkpoints/step-0003-compact.json', origin: strategyOrigin('progressive-removal', 'scratchpad') });
        expect(judgeProbe(IN_RESULT, [SYSTEM, note], store, SCENARIO_IDS)).toEqual({ how: 'recoverable', file: '/checkpoints/step-0003-compact.json' });
      });
    });

    describe('lost', () => {
      it('when the answer is nowhere', () => {
        expect(judgeProbe(NOWHERE, SCENARIO, OFFLOAD_STORE, SCENARIO_IDS)).toEqual({ how: 'lost' });
      });

      it('when a masked result dropped it and no file holds it', () => {
        expect(judgeProbe(IN_RESULT, [SYSTEM, TASK, CALL, MASKED], EMPTY, SCENARIO_IDS)).toEqual({ how: 'lost' });
      });

      it('when a file holds it but nothing in the context points there', () => {
        expect(judgeProbe(IN_RESULT, [SYSTEM, TASK, CALL, MASKED], OFFLOAD_STORE, SCENARIO_IDS)).toEqual({ how: 'lost' });
      });

      it('when the answer would only match across two messages', () => {
        const left = userMessage({ id: 'm0001', content: 'timeout =' });
        const right = userMessage({ id: 'm0002', content: ' 4711' });
        expect(judgeProbe('timeout =\n 4711', [left, right], EMPTY, SCENARIO_IDS)).toEqual({ how: 'lost' });
        expect(judgeProbe('timeout = 4711', [left, right], EMPTY, SCENARIO_IDS)).toEqual({ how: 'lost' });
      });
    });

    it('rejects an empty answer (every context would hold it)', () => {
      expect(() => judgeProbe('', SCENARIO, EMPTY, SCENARIO_IDS)).toThrow(RangeError);
    });

    it('any piece of any scenario message is verbatim in the unmanaged history', () => {
      const texts = fc.array(fc.string({ minLength: 1, maxLength: 30 }), { minLength: 1, maxLength: 6 });
      fc.assert(
        fc.property(texts, fc.nat(), fc.nat(), fc.nat(), (contents, which, from, length) => {
          const history = contents.map((content, i) => userMessage({ id: `m${i}`, content }));
          const text = contents[which % contents.length]!;
          const start = from % text.length;
          const answer = text.slice(start, start + 1 + (length % (text.length - start)));
          expect(judgeProbe(answer, history, EMPTY, scenarioMessageIds(history)).how).toBe('verbatim');
        }),
      );
    });
  });

  describe('passed', () => {
    it.each<[ProbeHow, boolean]>([
      ['verbatim', true],
      ['summary', true],
      ['recoverable', true],
      ['lost', false],
    ])('%s -> %s', (how, expected) => {
      expect(passed(how)).toBe(expected);
    });

    it('covers every verdict', () => {
      expect(PROBE_HOWS).toEqual(['verbatim', 'summary', 'recoverable', 'lost']);
    });
  });

  describe('pointsAt', () => {
    it.each([
      ['the full path', 'see /tool_outputs/a.txt', '/tool_outputs/a.txt', true],
      ['the path without its leading slash', 'see tool_outputs/a.txt', '/tool_outputs/a.txt', true],
      ['its folder, rooted, with a trailing slash', 'grep /conversation_history/', '/conversation_history/c.json', true],
      ['a nested folder', 'look in /a/b/', '/a/b/c.txt', true],
      ['a folder without its trailing slash', 'the /conversation_history folder', '/conversation_history/c.json', false],
      ['the root alone', 'paths start with /', '/a.txt', false],
      ['the path ending a sentence', 'saved to /tool_outputs/a.txt.', '/tool_outputs/a.txt', true],
      ["the recovery prompt's folder", RECOVERY_PROMPT, '/tool_outputs/bash_step1_call_1.txt', true],
      ['another file of the folder', 'see /tool_outputs/b.txt', '/tool_outputs/a.txt', false],
      ['a longer file name', 'see /tool_outputs/a.txt.bak and /tool_outputs/a.txt-2', '/tool_outputs/a.txt', false],
      ['the same path inside another tree', 'cat repo/tool_outputs/a.txt', '/tool_outputs/a.txt', false],
    ])('%s', (_what, text, path, expected) => {
      expect(pointsAt(text, path)).toBe(expected);
    });
  });

  describe('contextPointsAt', () => {
    it('property: a context points at a path when its text does, every content and call argument a line of it', () => {
      const unit = fc.constantFrom('a', '/', '.', '-', ' ', '\n', 'b');
      const message = textMessage(unit, 12);
      const path = fc.array(fc.constantFrom('a', 'b', 'a.b', 'a-'), { minLength: 1, maxLength: 3 }).map((segments) => `/${segments.join('/')}`);
      fc.assert(
        fc.property(fc.array(message, { maxLength: 5 }), path, (context, p) => {
          const lines = context.flatMap((m) => [m.content, ...(m.role === 'assistant' ? m.toolCalls.map((c) => c.arguments) : [])]);
          expect(contextPointsAt(context, p)).toBe(pointsAt(lines.join('\n'), p));
        }),
        { numRuns: 500 },
      );
    });
  });

  describe('scenarioMessageIds', () => {
    it('holds every message id', () => {
      expect([...SCENARIO_IDS]).toEqual(['m0000', 'm0001', 'm0002', 'm0003']);
    });
  });

  describe('rereadTokens', () => {
    it('is the file as one tool result: 3 of framing + its text', () => {
      const counter = counterFrom('chars4', charsPerFour);
      expect(rereadTokens('x'.repeat(400), counter)).toBe(3 + 100);
      expect(rereadTokens('', counter)).toBe(3);
    });
  });
});
