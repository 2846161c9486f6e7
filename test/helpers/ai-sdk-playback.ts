/**
 * The AI SDK's own mock model playing a recorded conversation back (test/helpers/agent-conversation.ts),
 * a turn a step, and tools returning the recorded outputs: what the adapter's tests and the README's
 * example run in `generateText`. The model reports ctxbench's count of what it received as its usage.
 */
import { jsonSchema, tool, type ToolSet } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { assistantMessage, systemMessage, toolMessage, userMessage, type Message } from '../../src/core/messages.js';
import type { TokenCounter } from '../../src/core/tokens.js';
import { TOOL_NAMES, type PlayedTurn } from './agent-conversation.js';

type Prompt = Parameters<MockLanguageModelV3['doGenerate']>[0]['prompt'];
type Part = { type: string; text?: string; toolCallId?: string; toolName?: string; input?: unknown; output?: { type: string; value?: unknown } };

/** What the model received, in ctxbench's model (to compare with a replay and pair-check). */
export function received(prompt: Prompt): Message[] {
  return prompt.flatMap((m, i): Message[] => {
    const id = `p${i}`;
    if (m.role === 'system') return [systemMessage({ id, content: m.content })];
    const parts = m.content as Part[];
    const text = parts.flatMap((p) => (p.type === 'text' ? [p.text!] : [])).join('');
    if (m.role === 'user') return [userMessage({ id, content: text })];
    if (m.role === 'assistant') {
      const calls = parts.filter((p) => p.type === 'tool-call').map((p) => ({ id: p.toolCallId!, name: p.toolName!, arguments: typeof p.input === 'string' ? p.input : JSON.stringify(p.input) }));
      return [assistantMessage({ id, content: text, toolCalls: calls })];
    }
    return parts.map((p, k) => toolMessage({ id: `${id}.${k}`, toolCallId: p.toolCallId!, name: p.toolName!, content: String(p.output!.value) }));
  });
}

/** The SDK's mock model playing `played` back, a turn a step, reporting ctxbench's count of what it received as its usage. */
export function playback(played: readonly PlayedTurn[], counter: TokenCounter): { model: MockLanguageModelV3; prompts: Message[][] } {
  const prompts: Message[][] = [];
  const model = new MockLanguageModelV3({
    doGenerate: async ({ prompt }) => {
      const context = received(prompt);
      const turn = played[prompts.length]!;
      prompts.push(context);
      return {
        content: [{ type: 'text', text: turn.text }, ...turn.calls.map((c) => ({ type: 'tool-call' as const, toolCallId: c.id, toolName: c.name, input: JSON.stringify(c.input) }))],
        finishReason: { unified: turn.calls.length > 0 ? 'tool-calls' : 'stop', raw: undefined },
        usage: {
          inputTokens: { total: counter.countContext(context), noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
          outputTokens: { total: undefined, text: undefined, reasoning: undefined },
        },
        warnings: [],
      };
    },
  });
  return { model, prompts };
}

/** The tools, each returning the recorded output of the call it gets. */
export function tools(played: readonly PlayedTurn[]): ToolSet {
  const outputs = new Map(played.flatMap((t) => t.calls.map((c) => [c.id, c.output] as const)));
  return Object.fromEntries(TOOL_NAMES.map((name) => [name, tool({ inputSchema: jsonSchema<Record<string, unknown>>({ type: 'object' }), execute: async (_input, { toolCallId }) => outputs.get(toolCallId)! })]));
}

