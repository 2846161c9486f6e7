/**
 * A long tool loop for the adapters' tests: a deterministic conversation an agent framework's mock
 * model plays back turn by turn (its calls, then the tool outputs the tools return), and the same
 * conversation as a ctxbench scenario for `bench run`'s replay, to compare what each sends.
 */
import type { Message } from '../../src/core/messages.js';
import { parseScenario, type Scenario } from '../../src/scenarios/scenario.js';
import type { ScenarioFileMessage } from '../../src/scenarios/schema.js';

export interface PlayedCall {
  readonly id: string;
  readonly name: string;
  /** Arguments as an object (what frameworks hand a tool); JSON.stringify gives the scenario's text. */
  readonly input: Record<string, unknown>;
  readonly output: string;
}

export interface PlayedTurn {
  readonly text: string;
  readonly calls: readonly PlayedCall[];
}

export const SYSTEM_PROMPT = 'You are a coding agent. Use the tools.';
export const TASK = 'Make the test suite pass.';
export const TOOL_NAMES = ['bash', 'read_file', 'write_file'] as const;

/** `turns` turns of one or two calls each (file writes carry their content), then a final answer without calls. */
export function agentConversation(turns: number): PlayedTurn[] {
  let seed = 7;
  const next = (n: number): number => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) % n;
  const played: PlayedTurn[] = [];
  for (let t = 0; t < turns; t++) {
    const calls = Array.from({ length: 1 + next(2) }, (_, k): PlayedCall => {
      const name = TOOL_NAMES[next(3)]!;
      const path = `src/module_${t}_${k}.py`;
      const input = name === 'write_file' ? { path, content: `x_${t} = ${k}\n`.repeat(20 + next(200)) } : name === 'bash' ? { command: `pytest tests/test_${t}.py` } : { path };
      return { id: `call_${t}_${k}`, name, input, output: `${path}: line ${t}.${k}\n`.repeat(5 + next(120)) };
    });
    played.push({ text: `Step ${t}: checking ${calls.map((c) => c.name).join(' and ')}.`, calls });
  }
  played.push({ text: 'All tests pass.', calls: [] });
  return played;
}

/** The conversation as a ctxbench scenario (what `bench run --scenario` replays). */
export function conversationScenario(played: readonly PlayedTurn[]): Scenario {
  const messages: ScenarioFileMessage[] = [
    { role: 'system', content: SYSTEM_PROMPT },
    { role: 'user', content: TASK },
  ];
  for (const turn of played) {
    messages.push({ role: 'assistant', content: turn.text, toolCalls: turn.calls.map((c) => ({ id: c.id, name: c.name, arguments: JSON.stringify(c.input) })) });
    for (const c of turn.calls) messages.push({ role: 'tool', toolCallId: c.id, name: c.name, content: c.output });
  }
  return parseScenario({ ctxbench: 1, id: 'agent-loop', model: { name: 'gpt-4o' }, messages }, 'agent-loop.json');
}

/** A message as both sides can state it: role, text, calls (id, name, arguments), the call a result answers. */
export type Plain = readonly [role: string, text: string, calls: string, answers: string];

export const plain = (m: Message): Plain => [m.role, m.content, m.role === 'assistant' ? m.toolCalls.map((c) => `${c.id} ${c.name} ${c.arguments}`).join('; ') : '', m.role === 'tool' ? m.toolCallId : ''];
