/**
 * LangChain's fake chat model playing a recorded conversation back (test/helpers/agent-conversation.ts),
 * a turn a call, and tools returning the recorded outputs: what the middleware's tests and the README's
 * example run in `createAgent`. The model reports ctxbench's count of what it received as its usage.
 */
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { tool } from 'langchain';
import { z } from 'zod';
import { assistantMessage, systemMessage, toolMessage, userMessage, type Message } from '../../src/core/messages.js';
import type { TokenCounter } from '../../src/core/tokens.js';
import { TOOL_NAMES, type PlayedTurn } from './agent-conversation.js';

/** What the model received, in ctxbench's model. */
export function received(messages: readonly BaseMessage[]): Message[] {
  return messages.map((m, i) => {
    const id = `p${i}`;
    if (m.type === 'system') return systemMessage({ id, content: m.text });
    if (m.type === 'human') return userMessage({ id, content: m.text });
    if (m.type === 'ai') return assistantMessage({ id, content: m.text, toolCalls: ((m as AIMessage).tool_calls ?? []).map((c) => ({ id: c.id!, name: c.name, arguments: JSON.stringify(c.args) })) });
    const result = m as unknown as { tool_call_id: string; name?: string };
    return toolMessage({ id, toolCallId: result.tool_call_id, name: result.name ?? '', content: m.text });
  });
}

/** LangChain's fake model playing `played` back, a turn a call, reporting ctxbench's count of what it received. */
export function playback(played: readonly PlayedTurn[], counter: TokenCounter): { model: ReturnType<typeof fakeModel>; prompts: Message[][] } {
  const prompts: Message[][] = [];
  const model = fakeModel();
  for (const turn of played) {
    model.respond((messages) => {
      const context = received(messages);
      prompts.push(context);
      return new AIMessage({
        content: turn.text,
        tool_calls: turn.calls.map((c) => ({ id: c.id, name: c.name, args: c.input, type: 'tool_call' as const })),
        usage_metadata: { input_tokens: counter.countContext(context), output_tokens: 0, total_tokens: counter.countContext(context) },
      });
    });
  }
  return { model, prompts };
}

/** The tools, each returning the recorded output of the call it gets. */
export function tools(played: readonly PlayedTurn[]) {
  const outputs = new Map(played.flatMap((t) => t.calls.map((c) => [c.id, c.output] as const)));
  return TOOL_NAMES.map((name) =>
    tool(async (_input: Record<string, unknown>, config: { toolCall?: { id?: string } }) => outputs.get(config.toolCall!.id!)!, { name, description: name, schema: z.looseObject({}) }),
  );
}

