import { beforeAll, describe, expect, it } from 'vitest';
import { joinParts, type Quote, type TextPart } from '../core/composed-text.js';
import { checkOrder, checkPairing } from '../core/pairing.js';
import type { Message } from '../core/messages.js';
import { createTokenCounter, type TokenCounter } from '../core/tokens.js';
import { createMockBackend, type MockOptions } from '../llm/mock.js';

import { loadScenario } from '../scenarios/load.js';
import type { Scenario } from '../scenarios/scenario.js';
import { parallel, round, say, scenarioOf, sweScenarioMessages, sys, user } from '../../test/helpers/history.js';
import { recordedReplay } from '../../test/helpers/replay.js';
import { strategyInput } from '../../test/helpers/strategy-input.js';
import { conversationJsonParts, conversationMarkdown, conversationMarkdownParts } from './parts/conversation-archive.js';
import { createOffloadStore } from '../core/offload-store.js';
import { type Params, resolveParams } from '../core/params.js';
import { PRESETS } from './presets.js';
import { summarizationStrategy, SUMMARIZERS, type SummarizationParams } from './summarization.js';
import { heuristicSummary, summaryMessageText, VALIS_SUMMARY_PROMPT } from './parts/summarizers/valis.js';
import { CODEX_SUMMARY_PREFIX, CODEX_SUMMARY_PROMPT } from './parts/summarizers/codex.js';
import { GOOSE_CONTINUATION, GOOSE_SUMMARY_PROMPT, gooseParts } from './parts/summarizers/goose.js';
import { DEEPAGENTS_HISTORY_FILE } from './parts/summarizers/deepagents.js';
import { AuxiliaryCallError, type AuxiliaryLlm, type AuxiliaryRequest, resolveStrategyParams, type StrategyInput } from '../core/strategy.js';

let counter: TokenCounter;
beforeAll(async () => {
  counter = await createTokenCounter('o200k_base');
});

const params = (...assignments: string[]) => resolveStrategyParams(summarizationStrategy, assignments);
const presetParams = (name: string) =>
  resolveParams([{ name, params: summarizationStrategy.params, checkParams: summarizationStrategy.checkParams, base: PRESETS[name]!.params }], []).get(name)! as SummarizationParams;

/** An auxiliary LLM backed by the mock (recall 1: every fact kept), recording each request. */
function mockLlm(options: MockOptions = {}): { llm: AuxiliaryLlm; requests: AuxiliaryRequest[] } {
  const mock = createMockBackend(counter, { recall: 1, ...options });
  const requests: AuxiliaryRequest[] = [];
  const llm: AuxiliaryLlm = async (request) => {
    requests.push(request);
    const { message, usage } = await mock.complete(request);
    return { message, text: message.content, usage };
  };
  return { llm, requests };
}

const failing: AuxiliaryLlm = () => Promise.reject(new AuxiliaryCallError('overflow', 'too big'));

async function plan(messages: readonly Message[], window: number, assignments: string[] = [], extra: Partial<StrategyInput> = {}, p?: SummarizationParams) {
  const files = extra.files ?? createOffloadStore();
  const result = await summarizationStrategy.create(p ?? params('recoveryPrompt=false', ...assignments)).beforeRequest(strategyInput(counter, messages, window, { files, llm: mockLlm().llm, ...extra }));
  return { ...result, events: [...(result.events ?? [])], files };
}

/** Outputs with facts (paths, identifiers) the mock summary keeps, so tests can follow them. */
const output = (tag: string, n = 30): string => Array.from({ length: n }, (_, i) => `src/${tag}/module_${i}.py: value_${tag}_${i} = ${1000 + i}`).join('\n');
const history = (rounds = 8): Message[] => [sys('Be careful.'), user('Fix parse_config in src/config.py'), ...Array.from({ length: rounds }, (_, i) => round('bash', output(`r${i}`))).flat()];
/** A window that puts `messages` at `fraction` of it. */
const windowAt = (messages: readonly Message[], fraction: number): number => Math.ceil(counter.countContext(messages) / fraction);
const summaryOf = (messages: readonly Message[]) => messages.find((m) => m.origin.source === 'strategy' && m.origin.action === 'summary');

describe('summarization', () => {
  describe('trigger (seed: above 95% of the window)', () => {
    it('does nothing at or below summarizationThreshold', async () => {
      const h = history();
      const result = await plan(h, windowAt(h, 0.94));
      expect(result.messages).toBe(h);
      expect(result.events).toEqual([]);
    });

    it('summarizes above it', async () => {
      const h = history();
      const result = await plan(h, windowAt(h, 0.96));
      expect(result.events.map((e) => e.kind)).toEqual(['summarized']);
      expect(counter.countContext(result.messages)).toBeLessThan(counter.countContext(h));
    });
  });

  describe('summary request and structure', () => {
    it('sends a tool-less, well-paired request: the span as the seed\'s markdown, then the seed\'s prompt', async () => {
      const h = history();
      const { llm, requests } = mockLlm();
      await plan(h, windowAt(h, 0.96), [], { llm });
      expect(requests).toHaveLength(1);
      const [request] = requests;
      expect(request!.purpose).toBe('summary');
      expect(request!.expect).toEqual({ sections: ['Session Intent', 'Progress So Far', 'Key Decisions', 'Current State', 'Next Steps', 'Important Details'] });
      expect(request!.messages.map((m) => m.role)).toEqual(['system', 'user', 'user']);
      expect(request!.messages[0]).toBe(h[0]); // every request starts with the system prompt
      expect(request!.messages[2]!.content).toBe(VALIS_SUMMARY_PROMPT);
      expect(request!.messages[1]!.content).toMatch(/^# Conversation History\n\n## Message 1 \(user\)\n\nFix parse_config/);
      expect(checkPairing(request!.messages, { request: true })).toEqual([]);
    });

    it('puts the summary, in the seed\'s wrapper and with every section, right after the system prompt', async () => {
      const h = history();
      const result = await plan(h, windowAt(h, 0.96));
      const summary = result.messages[1]!;
      expect(summary).toMatchObject({ role: 'system', id: 'summarization:summary:0', origin: { source: 'strategy', action: 'summary' } });
      expect(summary.content).toMatch(/^\n\[CONVERSATION SUMMARY\]\nThe following is a summary of the conversation so far\. The full conversation \nhas been saved to \/conversation_history\/ and can be searched with grep\(\)\.\n\n/);
      expect(summary.content).toMatch(/\n\n\[END SUMMARY\]\n$/);
      for (const section of SUMMARIZERS.valis.sections) expect(summary.content).toContain(`## ${section}`);
      expect(summary.content).toContain('src/config.py'); // intent kept (mock recall 1)
    });

  });

  describe('kept messages (seed: the system message and the most recent ~20% of the window)', () => {
    it('keeps the system prompt first and the most recent whole rounds within keepFraction', async () => {
      const h = history(10);
      const window = windowAt(h, 0.96);
      const result = await plan(h, window);
      const kept = result.messages.slice(2);
      expect(result.messages[0]).toBe(h[0]);
      expect(kept).toEqual(h.slice(h.length - kept.length)); // a suffix, verbatim
      expect(kept.length).toBeGreaterThan(0);
      expect(kept[0]!.role).toBe('assistant');
      const keptTokens = kept.reduce((sum, m) => sum + counter.countMessage(m), 0);
      expect(keptTokens).toBeLessThanOrEqual(0.2 * window);
      // One more round would not have fitted.
      const next = h.slice(h.length - kept.length - 2, h.length - kept.length);
      expect(keptTokens + next.reduce((sum, m) => sum + counter.countMessage(m), 0)).toBeGreaterThan(0.2 * window);
      expect(checkPairing(result.messages, { request: true })).toEqual([]);
      expect(checkOrder(h, result.messages)).toBeUndefined();
    });

    it('never starts the kept tail on a tool result, with parallel calls at the cut', async () => {
      const h = [sys(), user('task'), ...round('bash', output('a')), ...parallel([output('p1', 15), output('p2', 15), output('p3', 15)]), ...round('bash', output('z', 5))];
      // keepFraction just above the last round + two of the parallel results: a plain slice would cut there.
      const lastRound = h.slice(-2).reduce((s, m) => s + counter.countMessage(m), 0);
      const twoResults = h.slice(-4, -2).reduce((s, m) => s + counter.countMessage(m), 0);
      const window = windowAt(h, 0.96);
      const keep = (lastRound + twoResults + 5) / window;
      const result = await plan(h, window, [`keepFraction=${keep}`]);
      expect(result.messages.slice(2)).toEqual(h.slice(-2));
      expect(checkPairing(result.messages, { request: true })).toEqual([]);
    });

    it('always keeps the latest round, even over the budget (the model has not seen its results)', async () => {
      const h = [sys(), user('task'), ...round('bash', output('a')), ...round('bash', output('big', 120))];
      const result = await plan(h, windowAt(h, 0.96), ['keepFraction=0.05']);
      expect(result.messages.slice(2)).toEqual(h.slice(-2));
    });

    it('is well paired after every compaction across steps', async () => {
      const run = summarizationStrategy.create(params('recoveryPrompt=false', 'summarizationThreshold=0.5', 'keepFraction=0.1', 'offloadFirst=false'));
      const { llm } = mockLlm();
      let messages: readonly Message[] = [sys(), user('task')];
      let summaries = 0;
      for (let step = 0; step < 12; step++) {
        messages = [...messages, ...(step % 3 === 0 ? parallel([output(`p${step}`, 10), output(`q${step}`, 10)]) : round('bash', output(`s${step}`, 15)))];
        const result = await run.beforeRequest(strategyInput(counter, messages, 2500, { step, llm }));
        summaries += (result.events ?? []).filter((e) => e.kind === 'summarized').length;
        expect(checkPairing(result.messages, { request: true })).toEqual([]);
        expect(result.messages.filter((m) => m.role === 'system' && m.origin.source === 'strategy')).toHaveLength(summaries > 0 ? 1 : 0);
        messages = result.messages;
      }
      expect(summaries).toBeGreaterThan(1);
    });
  });

  // OpenAI Codex CLI, codex-rs/core/src/compact.rs: build_compacted_history keeps the user's messages
  // (most recent first, up to COMPACT_USER_MESSAGE_MAX_TOKENS = 20,000) and appends the summary as a
  // user message after SUMMARY_PREFIX; run_compact_task_inner removes the oldest history item and
  // retries while the compact request exceeds the context window.
  describe('template=codex, keep=user-messages (the codex preset)', () => {
    const u1 = user('First request: fix src/a.py');
    const u2 = user('Also update docs/readme.md');
    const u3 = user('And run the tests');
    const h = [sys(), u1, ...round('bash', output('a')), u2, ...round('bash', output('b')), u3, ...round('bash', output('c'))];
    const codex = ['template=codex', 'keep=user-messages', 'offloadFirst=false'];

    it("keeps the user's own messages within keepUserTokens, then the summary as a user message after Codex's prefix; no tool items", async () => {
      const budget = counter.countMessage(u2) + counter.countMessage(u3);
      const result = await plan(h, windowAt(h, 0.96), [...codex, `keepUserTokens=${budget}`]);
      expect(result.messages.slice(0, 3)).toEqual([h[0], u2, u3]);
      const summary = result.messages.at(-1)!;
      expect(summary).toBe(summaryOf(result.messages));
      expect(summary).toMatchObject({ role: 'user', id: 'summarization:summary:0' });
      expect(summary.content.startsWith(`${CODEX_SUMMARY_PREFIX}\n## Goal\n`)).toBe(true);
      expect(result.messages.some((m) => m.role === 'tool' || m.role === 'assistant')).toBe(false);
      expect(result.events[0]!.detail).toBe('9 messages summarized (LLM summary), 2 kept');
      expect(result.files.list()).toEqual([]); // nothing saved where the model could read it
    });

    it('asks with the whole conversation as it is, tool items included, then the compact prompt', async () => {
      const { llm, requests } = mockLlm();
      await plan(h, windowAt(h, 0.96), codex, { llm });
      expect(requests).toHaveLength(1);
      expect(requests[0]!.messages.slice(0, -1)).toEqual(h);
      expect(requests[0]!.messages.at(-1)!.content).toBe(CODEX_SUMMARY_PROMPT);
    });

    it('leaves the oldest items out of the compact request while it does not fit the window', async () => {
      const { llm, requests } = mockLlm();
      const refusing: AuxiliaryLlm = (request) => (request.messages.length > 6 ? Promise.reject(new AuxiliaryCallError('overflow', 'too big')) : llm(request));
      const result = await plan(h, windowAt(h, 0.96), codex, { llm: refusing });
      // The task (the oldest item), then each call with its result, until the request is short enough.
      expect(requests[0]!.messages.map((m) => m.id)).toEqual([h[0]!.id, ...h.slice(-3).map((m) => m.id), 'summarization:summary-prompt:0']);
      expect(result.events[0]!.detail).toBe('9 messages summarized (LLM summary, the 4 oldest items left out of its request to fit), 3 kept');
      expect(checkPairing(requests[0]!.messages, { request: true })).toEqual([]);
    });

    it('gives up when nothing is left to leave out: the context is sent as it is', async () => {
      const result = await plan(h, windowAt(h, 0.96), codex, { llm: failing });
      expect(result.messages).toBe(h);
      expect(result.events.map((e) => e.detail)).toEqual(['no summary: the summary request failed (overflow), with 6 oldest items left out; the context is sent as it is']);
    });
  });

  // Goose, crates/goose/src/context_mgmt/mod.rs: compact_messages hides every message from the agent,
  // which then sees the summary (role user), an assistant continuation message, and a fresh copy of the
  // most recent user message with text only; do_compact leaves 10/20/50/100% of the tool responses out
  // of the summary request, middle-out, when it exceeds the context length.
  describe('template=goose, keep=last-user-message (the goose preset)', () => {
    const task = user('Fix parse_config in src/config.py');
    const h = [sys(), task, ...round('bash', output('a')), ...round('read_file', output('b')), ...round('bash', output('c'))];
    const goose = ['template=goose', 'keep=last-user-message', 'offloadFirst=false'];

    it('leaves the model the summary, a note that the context was compacted, and the latest user message', async () => {
      const result = await plan(h, windowAt(h, 0.96), goose);
      expect(result.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
      expect(result.messages[1]).toBe(summaryOf(result.messages));
      for (const section of SUMMARIZERS.goose.sections) expect(result.messages[1]!.content).toContain(`## ${section}`);
      expect(result.messages[2]!.content).toBe(GOOSE_CONTINUATION.toolLoop);
      expect(result.messages[3]).toBe(task);
      expect(result.events[0]!.detail).toBe('7 messages summarized (LLM summary), 1 kept');
      expect(checkOrder(h, result.messages)).toBeUndefined();
    });

    it("renders the conversation as Goose's text and leaves tool responses out, middle-out, while the request overflows", async () => {
      const { llm, requests } = mockLlm();
      let refusals = 0;
      const refusing: AuxiliaryLlm = (request) => (refusals++ < 2 ? Promise.reject(new AuxiliaryCallError('overflow', 'too big')) : llm(request));
      const result = await plan(h, windowAt(h, 0.96), goose, { llm: refusing });
      const [request] = requests; // the third attempt: 20% of 3 responses is 1, Goose's middle - 1: the first
      expect(request!.messages[1]!.content).toBe(joinParts(gooseParts([task, h[2]!, h[4]!, h[5]!, h[6]!, h[7]!])));
      expect(request!.messages[1]!.content).toMatch(/^\[user\]: Fix parse_config in src\/config\.py\n\[assistant\]: Next step\.\ntool_request\(bash\): \{\}\n\[assistant\]: Next step\.\ntool_request\(read_file\): \{\}\n\[user\]: tool_response: src\/b\//);
      expect(request!.messages[2]!.content).toBe(GOOSE_SUMMARY_PROMPT);
      expect(result.events[0]!.detail).toBe('7 messages summarized (LLM summary, 20% of the tool responses left out of its request to fit), 1 kept');
    });
  });

  // deepagents, libs/deepagents/deepagents/middleware/summarization.py: the evicted messages are appended
  // to /conversation_history/{thread_id}.md, the summary is a HumanMessage naming that file, before
  // the preserved messages; LangChain trims what the summarizer reads to trim_tokens_to_summarize (4,000).
  describe('template=deepagents (the deepagents preset)', () => {
    const h = history(10);
    const deepagents = ['template=deepagents', 'keepFraction=0.1', 'offloadFirst=false'];

    it('appends the replaced messages to one history file and names it in a user-message summary before the kept messages', async () => {
      const files = createOffloadStore();
      const run = summarizationStrategy.create(params('recoveryPrompt=false', ...deepagents));
      const window = windowAt(h, 0.96);
      const first = await run.beforeRequest(strategyInput(counter, h, window, { files, llm: mockLlm().llm }));
      const summary = summaryOf(first.messages)!;
      expect(first.messages[1]).toBe(summary);
      expect(summary).toMatchObject({ role: 'user' });
      expect(summary.content).toMatch(new RegExp(`^This conversation was summarized to save space[\\s\\S]*${DEEPAGENTS_HISTORY_FILE}[\\s\\S]*<summary>\\n[\\s\\S]*\\n</summary>$`));
      expect(files.list()).toEqual([DEEPAGENTS_HISTORY_FILE]);
      expect(files.read(DEEPAGENTS_HISTORY_FILE)).toMatch(/^## Summarized at step 0\n\nHuman: Fix parse_config in src\/config\.py\nAI: Next step\.\nbash\(\{\}\)\nTool: src\/r0\//);
      // A second summary appends its own section; the first summary is not stored again.
      const more = [...first.messages, ...Array.from({ length: 8 }, (_, i) => round('bash', output(`n${i}`))).flat()];
      await run.beforeRequest(strategyInput(counter, more, windowAt(more, 0.96), { step: 5, files, llm: mockLlm().llm }));
      const stored = files.read(DEEPAGENTS_HISTORY_FILE)!;
      expect(stored.match(/^## Summarized at step \d+$/gm)).toEqual(['## Summarized at step 0', '## Summarized at step 5']);
      expect(stored).not.toContain('This conversation was summarized');
    });

    it('lets the summarizer read only the last 4,000 tokens of what it replaces', async () => {
      const long = history(40);
      const { llm, requests } = mockLlm();
      const result = await plan(long, windowAt(long, 0.96), deepagents, { llm });
      const input = requests[0]!.messages[1]!.content;
      expect(counter.countText(input)).toBeLessThanOrEqual(4000);
      expect(input).not.toContain('Fix parse_config'); // the task is older than the last 4,000 tokens
      expect(result.events[0]!.detail).toMatch(/^\d+ messages summarized \(LLM summary of the last \d+ of \d+ messages \(4,000 tokens\)\), \d+ kept; conversation saved to \/conversation_history\/thread\.md$/);
    });

    it("uses LangChain's error text as the summary when the request fails", async () => {
      const result = await plan(h, windowAt(h, 0.96), deepagents, { llm: failing });
      expect(summaryOf(result.messages)!.content).toContain('<summary>\nError generating summary: too big\n</summary>');
    });
  });

  describe('originals (seed: saved to the filesystem as JSON and markdown)', () => {
    it('saves the conversation before summarizing: the JSON restores it exactly, the markdown is the seed\'s', async () => {
      const h = history();
      const result = await plan(h, windowAt(h, 0.96));
      expect(result.files.list()).toEqual(['/conversation_history/conversation_step0.json', '/conversation_history/conversation_step0.md']);
      expect(result.files.read('/conversation_history/conversation_step0.json')).toBe(JSON.stringify(h, null, 2));
      expect(result.files.read('/conversation_history/conversation_step0.md')).toBe(conversationMarkdown(h));
      expect(result.events[0]!.detail).toContain('/conversation_history/conversation_step0.json and /conversation_history/conversation_step0.md');
    });

    it('writes the JSON archive from each message\'s JSON, kept with the message: the text JSON.stringify(messages, null, 2) gives', async () => {
      const real = (await loadScenario('scenarios/mini-swe-agent-gemini3pro/django__django-13344.json')).scenario.messages;
      for (const messages of [[], history(), real, real.slice(3, 9)]) {
        expect(joinParts(conversationJsonParts(messages))).toBe(JSON.stringify(messages, null, 2));
        expect(joinParts(conversationJsonParts(messages))).toBe(JSON.stringify(messages, null, 2)); // the kept items again
      }
    });

    it('lets a fact of the summarized span be found again with grep', async () => {
      const h = history();
      const result = await plan(h, windowAt(h, 0.96));
      const fact = 'value_r0_3 = 1003';
      expect(result.messages.some((m) => m.content.includes(fact) && m.origin.source === 'scenario')).toBe(false);
      const hits = result.files.list().filter((path) => result.files.read(path)!.split('\n').some((line) => line.includes(fact)));
      expect(hits).toEqual(['/conversation_history/conversation_step0.json', '/conversation_history/conversation_step0.md']);
    });

    it('cuts each message at 2,000 characters in the markdown, as the seed does', () => {
      const md = conversationMarkdown([user('x'.repeat(2500)), say('short')]);
      expect(md).toBe(`# Conversation History\n\n## Message 1 (user)\n\n${'x'.repeat(2000)}\n\n[truncated...]\n\n\n## Message 2 (assistant)\n\nshort\n\n`);
    });

    it('quotes a cut message as one text kept with it: every archive of it quotes the same, counted and read once', () => {
      const long = user('x '.repeat(1500));
      const cutOf = (parts: readonly TextPart[]) => parts.find((p): p is Quote => typeof p !== 'string' && p.text.length === 2000);
      const first = cutOf(conversationMarkdownParts([long, say('short')]));
      expect(first?.text).toBe('x '.repeat(1000));
      expect(cutOf(conversationMarkdownParts([say('before'), long]))).toBe(first);
    });
  });

  describe('summary failure (seed fallback: the heuristic summary)', () => {
    it('falls back to the seed\'s heuristic summary when the request fails, and carries on', async () => {
      const h = [sys(), user('Fix the parser'), ...round('read_file', output('a'), { path: 'src/parse.py' }), ...history(6).slice(2)];
      const result = await plan(h, windowAt(h, 0.96), [], { llm: failing });
      expect(summaryOf(result.messages)!.content).toBe(summaryMessageText(heuristicSummary(h)));
      expect(heuristicSummary(h)).toBe(
        '## Session Intent\nFix the parser\n\n## Tools Used\nread_file, bash\n\n## Files Created/Modified\nsrc/parse.py\n\n## Note\nThis is an automatic summary. Full conversation saved to /conversation_history/\n',
      );
      expect(result.events[0]!.detail).toContain('heuristic summary (the summary request failed: overflow)');
    });

    it('rethrows errors that are not auxiliary-call failures (bugs)', async () => {
      const h = history();
      await expect(plan(h, windowAt(h, 0.96), [], { llm: () => Promise.reject(new TypeError('bug')) })).rejects.toThrow('bug');
    });

    it('warns instead of summarizing when nothing lies outside the kept messages', async () => {
      // A system prompt that fills the window: everything after it fits in the kept share.
      const h = [sys(output('prompt', 200)), user('task'), ...round('bash', 'ok')];
      const result = await plan(h, windowAt(h, 0.96), ['keepFraction=0.5']);
      expect(result.messages).toBe(h);
      expect(result.events.map((e) => e.kind)).toEqual(['warning']);
    });
  });

  describe('offloadFirst (seed: tiers 1-2 run before tier 3)', () => {
    it('offloads first, and summarizes only if still above the threshold', async () => {
      const h = [sys(), user('task'), ...round('bash', output('small', 5)), ...round('bash', output('huge', 400))];
      const window = windowAt(h, 0.97);
      const first = await plan(h, window, ['largeResultTokens=2000']);
      expect(first.events.map((e) => e.kind)).toEqual(['offloaded']);
      const off = await plan(h, window, ['largeResultTokens=2000', 'offloadFirst=false']);
      expect(off.events.map((e) => e.kind)).toEqual(['summarized']);
    });

    it('with offloadFirst=false, still appends the recovery prompt when asked', async () => {
      const h = history(1);
      const result = await plan(h, 1_000_000, [], {}, params('offloadFirst=false'));
      expect(result.messages[0]!.content).toContain('## Context Management');
    });
  });

  describe('stats (seed: compaction stats)', () => {
    it('reports tokens before and after and the messages summarized', async () => {
      const h = history(10);
      const result = await plan(h, windowAt(h, 0.96));
      const [event] = result.events;
      const kept = result.messages.length - 2;
      expect(event).toMatchObject({ kind: 'summarized', messageId: 'summarization:summary:0', tokensBefore: counter.countContext(h), tokensAfter: counter.countContext(result.messages) });
      expect(event!.detail).toMatch(new RegExp(`^${h.length - 1 - kept} messages summarized \\(LLM summary\\), ${kept} kept;`));
    });
  });

  describe('parameters and presets', () => {
    it('has the seed defaults', () => {
      expect(params()).toEqual({
        summarizationThreshold: 0.95,
        keepFraction: 0.2,
        keep: 'recent',
        keepUserTokens: 20_000,
        template: 'valis',
        offloadFirst: true,
        offloadStyle: 'valis',
        largeResultTokens: 20_000,
        compactionThreshold: 0.85,
        previewLines: 10,
        recoveryPrompt: true,
      });
    });

    it('rejects crossed thresholds, naming the params', () => {
      expect(() => params('keepFraction=0.95')).toThrow(/keepFraction \(0.95\) must be below summarizationThreshold \(0.95\)/);
      expect(() => params('summarizationThreshold=0.8')).toThrow(/compactionThreshold \(0.85\) must not exceed summarizationThreshold \(0.8\) when offloadFirst=true/);
      expect(params('summarizationThreshold=0.8', 'offloadFirst=false')['summarizationThreshold']).toBe(0.8);
    });

    it('expresses the deepagents, codex and goose presets', () => {
      expect(presetParams('deepagents')).toMatchObject({ summarizationThreshold: 0.85, keepFraction: 0.1, largeResultTokens: 20_000, offloadFirst: true, offloadStyle: 'deepagents', previewLines: 5, template: 'deepagents' });
      expect(presetParams('codex')).toMatchObject({ summarizationThreshold: 0.9, keep: 'user-messages', keepUserTokens: 20_000, template: 'codex', offloadFirst: false });
      expect(presetParams('goose')).toMatchObject({ summarizationThreshold: 0.8, keep: 'last-user-message', template: 'goose', offloadFirst: false });
      const sources = { deepagents: 'langchain-ai/deepagents', codex: 'openai/codex', goose: 'block/goose' };
      for (const [name, repo] of Object.entries(sources)) expect(PRESETS[name]).toMatchObject({ strategy: summarizationStrategy, source: expect.stringContaining(repo) });
    });
  });

  describe('end to end', () => {
    async function replay(scenario: Scenario, window: number, p: Params, mock: MockOptions = {}) {
      const { run, requests: contexts } = await recordedReplay({ scenario, strategy: summarizationStrategy, params: p, counter, model: 'm', window, batchId: 'b', mock });
      for (const c of contexts) {
        expect(checkPairing(c.messages, { request: true })).toEqual([]);
        expect(checkOrder(scenario.messages, c.messages)).toBeUndefined();
      }
      return run;
    }

    it('replays a generated history: completes, summarizes, counts the summaries as overhead', async () => {
      const run = await replay(scenarioOf(sweScenarioMessages(40, 2000)), 8192, params());
      expect(run.summary.status).toBe('completed');
      expect(run.events.filter((e) => e.kind === 'summarized').length).toBeGreaterThan(0);
      expect(run.steps.filter((s) => s.purpose === 'summary').length).toBeGreaterThan(0);
      expect(run.summary.overheadTokens).toBeGreaterThan(0);
    });

    it('takes the heuristic fallback when the summary request fails or answers with a tool call', async () => {
      for (const fault of [{ failPurposes: ['summary'] }, { toolCallPurposes: ['summary'] }]) {
        const run = await replay(scenarioOf(sweScenarioMessages(40, 2000)), 8192, params(), fault);
        expect(run.summary.status).toBe('completed');
        expect(run.events.some((e) => e.kind === 'aux_failed')).toBe(true);
        expect(run.events.filter((e) => e.kind === 'summarized').every((e) => e.detail.includes('heuristic summary'))).toBe(true);
      }
    });

    it.each([
      ['scenarios/mini-swe-agent-gemini3pro/django__django-13344.json', 'summarization'],
      ['scenarios/openhands-codeact-sonnet35/django__django-10097.json', 'summarization'],
      ['scenarios/openhands-codeact-sonnet35/django__django-10097.json', 'deepagents'],
      ['scenarios/openhands-codeact-sonnet35/django__django-10097.json', 'codex'],
      ['scenarios/openhands-codeact-sonnet35/django__django-10097.json', 'goose'],
    ])('completes %s as %s at 16384 with zero pairing violations', async (file, name) => {
      const { scenario } = await loadScenario(file);
      const run = await replay(scenario, 16_384, name === 'summarization' ? params() : presetParams(name));
      expect(run.summary.status).toBe('completed');
      expect(run.events.some((e) => e.kind === 'pairing_violation')).toBe(false);
      expect(run.events.some((e) => e.kind === 'summarized')).toBe(true);
      expect(run.summary.overheadTokens).toBeGreaterThan(0);
    });
  });
});
