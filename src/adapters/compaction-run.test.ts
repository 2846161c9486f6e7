import { beforeAll, describe, expect, it } from 'vitest';
import { round, say, sys, user } from '../../test/helpers/history.js';
import { CtxbenchError } from '../core/errors.js';
import { strategyOrigin, toolMessage, userMessage, type Message } from '../core/messages.js';
import { defineStrategy, type ResponseInput, type StrategyInput } from '../core/strategy.js';
import { createTokenCounter, type TokenCounter } from '../core/tokens.js';
import { toolsText, type ToolDeclaration, type ToolDefinition } from '../core/tools.js';
import { createCompactionRun } from './compaction-run.js';

let counter: TokenCounter;
beforeAll(async () => {
  counter = await createTokenCounter('o200k_base');
});

// Fixtures: a task, then rounds of one tool call each, appended as an agent loop appends them.
const TASK = [sys(), user('Fix the parser.')];
const ROUND_1 = round('bash', 'output one '.repeat(40));
const ROUND_2 = round('read_file', 'def parse(): ...\n'.repeat(30));
const ROUND_3 = round('bash', 'tests pass');

/** A strategy that sends what it is given and keeps every input it saw. */
function spyStrategy(): { strategy: ReturnType<typeof defineStrategy>; inputs: StrategyInput[]; responses: ResponseInput[] } {
  const inputs: StrategyInput[] = [];
  const responses: ResponseInput[] = [];
  const strategy = defineStrategy({
    name: 'spy',
    summary: 'Sends what it is given.',
    create: () => ({
      beforeRequest: (input) => (inputs.push(input), { messages: input.messages }),
      afterResponse: (input) => void responses.push(input),
    }),
  });
  return { strategy, inputs, responses };
}

/** A strategy whose every context is `build(messages)`. */
const sending = (name: string, build: (messages: readonly Message[]) => readonly Message[]) =>
  defineStrategy({ name, summary: 'Sends what build makes.', create: () => ({ beforeRequest: ({ messages }) => ({ messages: build(messages) }) }) });

const code = async (promise: Promise<unknown>): Promise<string> => {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(CtxbenchError);
  return `${(error as CtxbenchError).code}: ${(error as CtxbenchError).message}`;
};

describe('createCompactionRun', () => {
  describe('state across requests', () => {
    it('gives the strategy its last context plus what the agent appended, and the previous request', async () => {
      const { strategy, inputs } = spyStrategy();
      const run = createCompactionRun({ strategy, window: 100_000 });
      const first = await run.step({ history: TASK });
      await run.step({ history: [...TASK, ...ROUND_1] });
      await run.step({ history: [...TASK, ...ROUND_1, ...ROUND_2] });

      expect(inputs.map((i) => [i.step, i.session, i.sessionSteps, i.appendedFrom])).toEqual([
        [0, 1, 0, 0],
        [1, 1, 1, 2],
        [2, 1, 2, 4],
      ]);
      expect(inputs[1]!.messages).toEqual([...first.messages, ...ROUND_1]);
      // The mock's usage in bench run: ctxbench's count of what was sent.
      expect(inputs[1]!.last).toEqual({ promptTokens: first.tokens, sentCount: 2 });
      expect(first.tokens).toBe(counter.countContext(TASK));
      expect(inputs[0]!.systemPrompt).toBe(TASK[0]);
    });

    it("passes the provider's prompt tokens when the adapter has them; a value that is no count is a warning", async () => {
      const { strategy, inputs } = spyStrategy();
      const run = createCompactionRun({ strategy, window: 100_000 });
      await run.step({ history: TASK });
      await run.step({ history: [...TASK, ...ROUND_1], usage: { promptTokens: ['usage.prompt_tokens', 1234] } });
      const bad = await run.step({ history: [...TASK, ...ROUND_1, ...ROUND_2], usage: { promptTokens: ['usage.prompt_tokens', -5] } });
      expect(inputs[1]!.last?.promptTokens).toBe(1234);
      expect(inputs[2]!.last?.promptTokens).toBe(counter.countContext([...TASK, ...ROUND_1]));
      expect(bad.events).toEqual([expect.objectContaining({ kind: 'warning', step: 2, detail: expect.stringMatching(/^usage\.prompt_tokens = -5 is not a token count/) })]);
    });

    it('hands the answer that opens what was appended to afterResponse, with the request it answers', async () => {
      const { strategy, responses } = spyStrategy();
      const run = createCompactionRun({ strategy, window: 100_000 });
      const first = await run.step({ history: TASK });
      await run.step({ history: [...TASK, ...ROUND_1], usage: { promptTokens: ['p', 50], completionTokens: ['c', 7] } });
      expect(responses).toHaveLength(1);
      expect(responses[0]).toMatchObject({ step: 0, session: 1, sessionSteps: 1, sent: first.messages, response: ROUND_1[0], usage: { promptTokens: 50, completionTokens: 7 } });
    });

    it("lets afterResponse's plan replace the session: what was appended is left out, a new session begins", async () => {
      const seed = userMessage({ id: 'seed', content: 'Continue from the summary.', origin: strategyOrigin('restarter', 'seed') });
      const inputs: StrategyInput[] = [];
      const strategy = defineStrategy({
        name: 'restarter',
        summary: 'Restarts after the first response.',
        create: () => ({
          beforeRequest: (input) => (inputs.push(input), { messages: input.messages }),
          afterResponse: ({ step, systemPrompt }) => (step === 0 ? { messages: [systemPrompt!, seed], newSession: true, events: [{ kind: 'continuation', detail: 'seeded' }] } : undefined),
        }),
      });
      const run = createCompactionRun({ strategy, window: 100_000 });
      await run.step({ history: TASK });
      const second = await run.step({ history: [...TASK, ...ROUND_1] });
      const third = await run.step({ history: [...TASK, ...ROUND_1, ...ROUND_2] });
      expect(second).toMatchObject({ messages: [TASK[0], seed], session: 2, step: 1 });
      expect(second.events).toEqual([{ kind: 'continuation', detail: 'seeded', step: 0, session: 1 }]);
      expect(inputs[1]).toMatchObject({ messages: [TASK[0], seed], appendedFrom: 2, last: undefined, sessionSteps: 0 });
      expect(third.messages).toEqual([TASK[0], seed, ...ROUND_2]);
    });

    it("keeps a strategy's edits from one request to the next (masking: a masked result stays masked, its id kept)", async () => {
      const run = createCompactionRun({ strategy: 'masking', params: { softThreshold: 0.3, hardThreshold: 0.95 }, window: 700 });
      await run.step({ history: TASK });
      const second = await run.step({ history: [...TASK, ...ROUND_1] });
      const third = await run.step({ history: [...TASK, ...ROUND_1, ...ROUND_2, ...ROUND_3] });
      const masked = (messages: readonly Message[]) => messages.filter((m) => m.origin.source === 'strategy' && m.origin.action === 'masked').map((m) => m.id);
      expect(second.events.map((e) => e.kind)).toEqual([]);
      expect(third.events.map((e) => [e.kind, e.messageId])).toEqual([['masked', ROUND_1[1]!.id]]);
      const fourth = await run.step({ history: [...TASK, ...ROUND_1, ...ROUND_2, ...ROUND_3, say('Done.'), user('Thanks.')] });
      // The first result is still masked, with no second event: the edit carried over.
      expect(masked(fourth.messages)).toEqual([ROUND_1[1]!.id]);
      expect(fourth.events).toEqual([]);
    });

    it('starts a new run when the history is not the one it extended before, and says so', async () => {
      const run = createCompactionRun({ strategy: 'raw', window: 100_000 });
      await run.step({ history: [...TASK, ...ROUND_1] });
      const other = [sys(), user('Another task.')];
      const next = await run.step({ history: other });
      expect(next).toMatchObject({ step: 0, session: 1, messages: other });
      expect(next.events).toEqual([{ kind: 'warning', step: 0, session: 1, detail: 'a new conversation (messages[1] is not the one sent before): raw starts a new run' }]);
    });

    it('takes messages rebuilt between requests (same content, new objects) as the same', async () => {
      const { strategy, inputs } = spyStrategy();
      const run = createCompactionRun({ strategy, window: 100_000 });
      await run.step({ history: TASK });
      const rebuilt = TASK.map((m) => ({ ...m }));
      const next = await run.step({ history: [...rebuilt, ...ROUND_1] });
      expect(next.events).toEqual([]);
      expect(inputs[1]!.messages[0]).toBe(TASK[0]); // the session's own message
    });
  });

  describe('what goes out', () => {
    it('sends a context over the window with an overflow event', async () => {
      const run = createCompactionRun({ strategy: 'raw', window: 50 });
      const step = await run.step({ history: [...TASK, ...ROUND_1] });
      expect(step.tokens).toBeGreaterThan(50);
      expect(step.events).toEqual([{ kind: 'overflow', step: 0, session: 1, detail: `context of ${step.tokens} tokens exceeds the 50-token window` }]);
    });

    it('refuses a conversation that breaks tool-call pairing, naming the message as the caller names it', async () => {
      const run = createCompactionRun({ strategy: 'raw', window: 100_000 });
      const orphan = toolMessage({ id: 'x', toolCallId: 'call_nowhere', name: 'bash', content: '?' });
      expect(await code(run.step({ history: [...TASK, orphan], label: (i) => `input[${i}]` }))).toBe(
        'MESSAGES_INVALID: input[2]: breaks tool-call pairing, which no model accepts: unmatched_tool_result at [2]: no call with id call_nowhere in the context',
      );
    });

    it('names the appended message that breaks pairing on a later request', async () => {
      const run = createCompactionRun({ strategy: 'raw', window: 100_000 });
      await run.step({ history: TASK });
      const [call] = round('bash', 'never answered');
      expect(await code(run.step({ history: [...TASK, call!] }))).toMatch(/^MESSAGES_INVALID: messages\[2\]: breaks tool-call pairing, which no model accepts: unmatched_tool_use at \[2\]/);
    });

    it('an error names a strategy that breaks pairing, and the step', async () => {
      const strategy = sending('dropper', (messages) => messages.filter((m) => m.role !== 'assistant'));
      const run = createCompactionRun({ strategy, window: 100_000 });
      await run.step({ history: TASK });
      expect(await code(run.step({ history: [...TASK, ...ROUND_1] }))).toMatch(/^STRATEGY_INVALID: strategy dropper broke tool-call pairing at step 1: unmatched_tool_result at \[2\]/);
    });

    it("an error names a strategy that breaks the history's order (rule 4): moved, sent twice, the system prompt not first; or sends nothing", async () => {
      const cases: [string, (messages: readonly Message[]) => readonly Message[], string][] = [
        ['prompt-last', (messages) => [...messages.slice(1), messages[0]!], `broke the history's order at step 0: context[1] (${TASK[0]!.id}) is out of history order`],
        ['twice', (messages) => [...messages, messages[1]!], `broke the history's order at step 0: context[2] (${TASK[1]!.id}) is out of history order`],
        ['nothing', () => [], 'returned no message to send at step 0'],
      ];
      for (const [name, build, problem] of cases) {
        expect(await code(createCompactionRun({ strategy: sending(name, build), window: 100_000 }).step({ history: TASK })), name).toBe(`STRATEGY_INVALID: strategy ${name} ${problem}`);
      }
    });

    it('calls on one run are taken in turn: two at once give what the same two give one after the other', async () => {
      const together = spyStrategy();
      const run = createCompactionRun({ strategy: together.strategy, window: 100_000 });
      const [A, B] = [[...TASK, user('conversation A')], [...TASK, user('conversation B')]];
      const [a, b] = await Promise.all([run.step({ history: A }), run.step({ history: B })]);
      const inTurn = spyStrategy();
      const again = createCompactionRun({ strategy: inTurn.strategy, window: 100_000 });
      const first = await again.step({ history: A });
      const second = await again.step({ history: B });
      expect([a, b]).toEqual([first, second]);
      expect(together.inputs.map((i) => i.step)).toEqual(inTurn.inputs.map((i) => i.step));
      expect(b.events.map((e) => e.kind)).toEqual(['warning']); // B is a new conversation: a new run
    });

    it('an error names a strategy that returns no messages, and the step', async () => {
      const strategy = defineStrategy({ name: 'empty-handed', summary: '-', create: () => ({ beforeRequest: () => ({}) as never }) });
      expect(await code(createCompactionRun({ strategy, window: 1000 }).step({ history: TASK }))).toBe('STRATEGY_INVALID: strategy empty-handed, beforeRequest at step 0: returned no message list (plan.messages)');
    });

    it.each(['beforeRequest', 'afterResponse'] as const)('a message of %s not made with the helpers (no id, no origin) is refused as bench run refuses it', async (hook) => {
      const plain = { role: 'user', content: 'Continue.' } as unknown as Message;
      const strategy = defineStrategy({
        name: 'plain',
        summary: '-',
        create: () => ({
          beforeRequest: ({ messages }) => ({ messages: hook === 'beforeRequest' ? [...messages, plain] : messages }),
          afterResponse: ({ messages, response }) => (hook === 'afterResponse' ? { messages: [...messages, response, plain] } : undefined),
        }),
      });
      const run = createCompactionRun({ strategy, window: 100_000 });
      const first = run.step({ history: TASK });
      if (hook === 'beforeRequest') {
        expect(await code(first)).toBe(`STRATEGY_INVALID: strategy plain, beforeRequest at step 0: returned a malformed message: messages[${TASK.length}] has no string id`);
        return;
      }
      await first;
      expect(await code(run.step({ history: [...TASK, ...ROUND_1] }))).toBe(`STRATEGY_INVALID: strategy plain, afterResponse at step 0: returned a malformed message: messages[${TASK.length + 1}] has no string id`);
    });

    it.each(['beforeRequest', 'afterResponse'] as const)('an error names a strategy that throws in %s, and the step', async (hook) => {
      const fail = (): never => {
        throw new TypeError("Cannot read properties of undefined (reading 'content')");
      };
      const strategy = defineStrategy({
        name: 'thrower',
        summary: '-',
        create: () => ({
          beforeRequest: ({ messages, step }) => (hook === 'beforeRequest' && step === 1 ? fail() : { messages }),
          afterResponse: () => (hook === 'afterResponse' ? fail() : undefined),
        }),
      });
      const run = createCompactionRun({ strategy, window: 100_000 });
      await run.step({ history: TASK });
      const at = hook === 'beforeRequest' ? 1 : 0; // afterResponse answers the previous request's response
      expect(await code(run.step({ history: [...TASK, ...ROUND_1] }))).toBe(`STRATEGY_INVALID: strategy thrower, ${hook} at step ${at}: threw: Cannot read properties of undefined (reading 'content')`);
    });

    it("a strategy's stop stops the agent, with its reason", async () => {
      const run = createCompactionRun({ strategy: 'masking', params: { autoRestart: false }, window: 120 });
      const windDown = await run.step({ history: [...TASK, ...ROUND_1] });
      expect(windDown.events.map((e) => e.kind)).toContain('wind_down');
      expect(await code(run.step({ history: [...TASK, ...ROUND_1, ...ROUND_2] }))).toBe(
        'STRATEGY_STOPPED: masking stopped the agent at step 1: hard threshold reached and autoRestart=false: the restart waits for a confirmation',
      );
    });
  });

  describe('summaries and checkpoints (the llm)', () => {
    // hybrid summarizes the oldest 4 of 8 turns once 6 are held (its summary request is the turns as text).
    const LONG = [...TASK, ...Array.from({ length: 8 }, (_, i) => round('bash', `result ${i} `.repeat(60))).flat()];
    const summarizing = (answer?: Parameters<typeof createCompactionRun>[1]) => createCompactionRun({ strategy: 'hybrid', params: { summarizeTurns: 4, keepTurns: 2 }, window: 100_000 }, answer);
    const auxFailed = (events: readonly { kind: string; detail: string }[]) => events.filter((e) => e.kind === 'aux_failed').map((e) => e.detail);

    it('without one, a summary request fails with aux_failed and the strategy takes its fallback path (hybrid: keep the turns)', async () => {
      const step = await summarizing().step({ history: LONG });
      expect(auxFailed(step.events)).toEqual(['summary: no llm given to the adapter (pass the llm option to have summaries and checkpoints written)']);
      expect(step.events.map((e) => e.kind)).not.toContain('summarized');
      expect(step.messages).toEqual(LONG);
    });

    it('with one, it gets the pair-checked request and its answer goes into the context', async () => {
      const requests: { purpose: string; messages: readonly Message[] }[] = [];
      const run = summarizing(async (request) => {
        requests.push(request);
        return '  The agent ran eight commands; all passed.  ';
      });
      const step = await run.step({ history: LONG });
      expect(requests.map((r) => [r.purpose, r.messages.map((m) => m.role)])).toEqual([['summary', ['system', 'user', 'user']]]);
      expect(step.events.map((e) => e.kind)).toEqual(['summarized']);
      expect(step.messages.filter((m) => m.content.endsWith('The agent ran eight commands; all passed.'))).toHaveLength(1);
    });

    it('an llm that throws or answers nothing is an aux_failed event naming why', async () => {
      const failed = await summarizing(() => Promise.reject(new Error('rate limited'))).step({ history: LONG });
      const empty = await summarizing(async () => ' ').step({ history: LONG });
      expect(auxFailed(failed.events)).toEqual(['summary: rate limited']);
      expect(auxFailed(empty.events)).toEqual(['summary: answered with no text']);
    });

    it('an answer that does not fit the window beside its prompt is refused: aux_failed, as bench run refuses it', async () => {
      const run = createCompactionRun({ strategy: 'hybrid', params: { summarizeTurns: 4, keepTurns: 2 }, window: 8_000 }, async () => 'word '.repeat(10_000));
      const step = await run.step({ history: LONG });
      expect(auxFailed(step.events)).toEqual([expect.stringMatching(/^summary: a prompt of \d+ tokens plus an answer of \d+ tokens exceeds the 8000-token window$/)]);
      expect(step.events.map((e) => e.kind)).not.toContain('summarized');
    });

    it('a summary request over the window is not sent: aux_failed', async () => {
      const asked: unknown[] = [];
      const run = createCompactionRun({ strategy: 'hybrid', params: { summarizeTurns: 4, keepTurns: 2 }, window: 400 }, async (r) => (asked.push(r), 'x'));
      const step = await run.step({ history: LONG });
      expect(asked).toEqual([]);
      expect(auxFailed(step.events)).toEqual([expect.stringMatching(/^summary: context of \d+ tokens exceeds the 400-token window$/)]);
    });
  });

  describe('options', () => {
    it.each([
      [{ strategy: 'raw', window: 0 }, 'OPTION_INVALID: window: expected a whole number of tokens from 1 to 2,147,483,647 (got 0)'],
      [{ strategy: 'raw', window: 1.5 }, 'OPTION_INVALID: window: expected a whole number of tokens from 1 to 2,147,483,647 (got 1.5)'],
      [{ strategy: 'raw', window: 1000, encoding: 'p50k' }, 'OPTION_INVALID: encoding: expected one of o200k_base, cl100k_base, chars4 (got "p50k")'],
      [{ strategy: 'raw', window: 1000, tools: { bash: {} } }, 'OPTION_INVALID: tools: expected a list of tool definitions'],
      [{ strategy: 'raw', window: 1000, tools: [{ type: 'function', function: { description: 'x' } }] }, 'OPTION_INVALID: tools[0].function.name: expected a string'],
      [{ strategy: 'raw', window: 1000, tools: ['bash'] }, 'OPTION_INVALID: tools[0]: expected an object'],
    ])('%j: %s', (options, message) => {
      expect(() => createCompactionRun(options as never)).toThrow(new CtxbenchError('OPTION_INVALID', message.replace(/^OPTION_INVALID: /, '')));
    });

    it('counts the tool definitions it is given in every agent request, as bench run counts a scenario\'s', async () => {
      const tools = [{ name: 'bash', description: 'Run a shell command.', parameters: { type: 'object', properties: { command: { type: 'string' } } } }];
      const withTools = await createCompactionRun({ strategy: 'raw', window: 1000, tools }).step({ history: TASK });
      const without = await createCompactionRun({ strategy: 'raw', window: 1000 }).step({ history: TASK });
      expect(withTools.tokens - without.tokens).toBe(counter.countText(toolsText(tools)));
    });

    it('reads tool definitions as agents send them: OpenAI function and custom tools, Anthropic tools', async () => {
      const parameters = { type: 'object', properties: { command: { type: 'string' } } };
      const tokensWith = async (tools: readonly ToolDeclaration[]): Promise<number> => (await createCompactionRun({ strategy: 'raw', window: 1000, tools }).step({ history: TASK })).tokens;
      const own = await tokensWith([{ name: 'bash', description: 'Run a shell command.', parameters }]);
      expect(await tokensWith([{ type: 'function', function: { name: 'bash', description: 'Run a shell command.', parameters, strict: true } as ToolDefinition }])).toBe(own);
      expect(await tokensWith([{ name: 'bash', description: 'Run a shell command.', input_schema: parameters }])).toBe(own);
      // A custom tool has no JSON Schema: its name and description count.
      const custom = await tokensWith([{ type: 'custom', custom: { name: 'apply_patch', description: 'Apply a patch.' } }]);
      const without = (await createCompactionRun({ strategy: 'raw', window: 1000 }).step({ history: TASK })).tokens;
      expect(custom - without).toBe(counter.countText(toolsText([{ name: 'apply_patch', description: 'Apply a patch.' }])));
    });

    it('counts with the tokenizer it is given', async () => {
      const run = createCompactionRun({ strategy: 'raw', window: 1000, encoding: 'chars4' });
      const step = await run.step({ history: [sys('x'.repeat(400))] });
      expect(step.tokens).toBe(100 + 3 + 3);
    });
  });
});

