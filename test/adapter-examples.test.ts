/**
 * The README's "Use a strategy in your agent" examples, run as written (test/examples.e2e.test.ts
 * runs shell, YAML and JSON blocks, not TypeScript): each `ts` block, its ctxbench imports pointed at
 * the sources, is written under node_modules/.cache (so its framework imports resolve as a user's
 * would), type-checked with the project's settings, imported, and its `runAgent` called with the framework's fake model playing a conversation
 * longer than the example's 128k window back. Every request must be well-paired and fit the window,
 * and the loop must end with the conversation's last answer.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Message } from '../src/core/messages.js';
import { checkPairing } from '../src/core/pairing.js';
import { createTokenCounter, type TokenCounter } from '../src/core/tokens.js';
import { fromOpenAiMessages } from '../src/llm/convert.js';
import { agentConversation, conversationScenario, type PlayedTurn } from './helpers/agent-conversation.js';
import * as aiSdk from './helpers/ai-sdk-playback.js';
import * as langchain from './helpers/langchain-playback.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const WINDOW = 128_000;

/** The `ts` blocks of the README section, by the ctxbench entry each imports. */
function examples(): Map<string, string> {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('\n## Use a strategy in your agent\n');
  const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
  const blocks = [...section.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
  return new Map(blocks.map((code) => [/from 'ctxbench(\/[a-z-]+)?'/.exec(code)?.[0] ?? '', code]));
}

const SOURCES: Readonly<Record<string, string>> = { ctxbench: 'src/sdk/index.js', 'ctxbench/ai-sdk': 'src/adapters/ai-sdk.js', 'ctxbench/langchain': 'src/adapters/langchain.js' };

const FOLDER = join(ROOT, 'node_modules', '.cache', 'ctxbench-readme');

/** Writes each example with its ctxbench import pointed at the sources, and a tsconfig (the project's settings) that checks them. */
function writeExamples(blocks: ReadonlyMap<string, string>): void {
  mkdirSync(FOLDER, { recursive: true });
  for (const [entry, code] of blocks) {
    const file = join(FOLDER, `${entry.replace(/\W+/g, '-')}.ts`);
    writeFileSync(file, code.replace(/from '(ctxbench(?:\/[a-z-]+)?)'/g, (_, name: string) => `from '${join(ROOT, SOURCES[name]!)}'`));
  }
  writeFileSync(join(FOLDER, 'tsconfig.json'), JSON.stringify({ extends: join(ROOT, 'tsconfig.json'), include: ['*.ts'] }));
}

const load = (entry: string): Promise<{ runAgent: (...args: never[]) => Promise<unknown> }> => import(join(FOLDER, `${entry.replace(/\W+/g, '-')}.ts`));

let counter: TokenCounter;
const played: PlayedTurn[] = agentConversation(160);
beforeAll(async () => {
  counter = await createTokenCounter('o200k_base');
  // Long enough that the example's strategy must act.
  expect(counter.countContext(conversationScenario(played).messages)).toBeGreaterThan(WINDOW * 1.2);
});

/** Every request fits the window (the whole conversation does not: the strategy acted) and is well-paired, and the loop ended with the last answer. */
function checkRun(prompts: readonly Message[][], result: unknown): void {
  expect(prompts).toHaveLength(played.length);
  for (const prompt of prompts) {
    expect(checkPairing(prompt, { request: true })).toEqual([]);
    expect(counter.countContext(prompt)).toBeLessThanOrEqual(WINDOW);
  }
  expect(result).toBe(played.at(-1)!.text);
}

describe("README 'Use a strategy in your agent'", () => {
  const blocks = examples();
  beforeAll(() => writeExamples(blocks));

  it('has one example per entry', () => {
    expect([...blocks.keys()].sort()).toEqual(["from 'ctxbench'", "from 'ctxbench/ai-sdk'", "from 'ctxbench/langchain'"]);
  });

  it('the examples type-check with the project\'s strict settings', () => {
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    expect(() => execFileSync(process.execPath, [tsc, '-p', FOLDER, '--noEmit'], { encoding: 'utf8' })).not.toThrow();
  }, 120_000);

  it('the openai example runs an agent loop, compacted', async () => {
    const { runAgent } = await load("from 'ctxbench'");
    const prompts: Message[][] = [];
    const client = {
      chat: {
        completions: {
          create: async ({ messages }: { messages: ChatCompletionMessageParam[] }) => {
            const context = fromOpenAiMessages(messages);
            const turn = played[prompts.length]!;
            prompts.push(context);
            const tool_calls = turn.calls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: JSON.stringify(c.input) } }));
            return {
              choices: [{ message: { role: 'assistant', content: turn.text, ...(tool_calls.length > 0 ? { tool_calls } : {}) } }],
              usage: { prompt_tokens: counter.countContext(context), completion_tokens: 10, total_tokens: counter.countContext(context) + 10 },
            };
          },
        },
      },
    } as unknown as OpenAI;
    const outputs = played.flatMap((t) => t.calls.map((c) => c.output));
    const tools = [{ type: 'function', function: { name: 'bash', description: 'Run a shell command.', parameters: { type: 'object', properties: { command: { type: 'string' } } } } }];
    const result = await runAgent(client as never, tools as never, (async () => outputs.shift()!) as never);
    checkRun(prompts, result);
  });

  it('the AI SDK example runs generateText, compacted', async () => {
    const { runAgent } = await load("from 'ctxbench/ai-sdk'");
    const { model, prompts } = aiSdk.playback(played, counter);
    checkRun(prompts, await runAgent(model as never, aiSdk.tools(played) as never));
  });

  it('the LangChain example runs createAgent, compacted', async () => {
    const { runAgent } = await load("from 'ctxbench/langchain'");
    const { model, prompts } = langchain.playback(played, counter);
    checkRun(prompts, await runAgent(model as never, langchain.tools(played) as never));
  });
});
