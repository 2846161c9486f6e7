/**
 * Small builders for hand-made histories and scenarios in tests.
 */
import {
  assistantMessage,
  systemMessage,
  toolMessage,
  userMessage,
  type Message,
} from '../../src/core/messages.js';
import { parseScenario, type Scenario } from '../../src/scenarios/scenario.js';
import type { ScenarioFileMessage } from '../../src/scenarios/schema.js';

let counter = 0;
const nextId = (prefix: string): string => `${prefix}${++counter}`;

export const sys = (content = 'You are a coding agent.'): Message => systemMessage({ id: nextId('s'), content });
export const user = (content: string): Message => userMessage({ id: nextId('u'), content });
export const say = (content: string): Message => assistantMessage({ id: nextId('a'), content });

/** An assistant turn calling `name` once and its result. */
export function round(name: string, output: string, args: Record<string, unknown> = {}, thought = 'Next step.'): Message[] {
  const callId = nextId('call_');
  return [
    assistantMessage({ id: nextId('a'), content: thought, toolCalls: [{ id: callId, name, arguments: JSON.stringify(args) }] }),
    toolMessage({ id: nextId('t'), toolCallId: callId, name, content: output }),
  ];
}

/** An assistant turn with several parallel calls, answered in the given order. */
export function parallel(outputs: string[], name = 'bash'): Message[] {
  const ids = outputs.map(() => nextId('call_'));
  return [
    assistantMessage({ id: nextId('a'), content: 'In parallel.', toolCalls: ids.map((id) => ({ id, name, arguments: '{}' })) }),
    ...ids.map((id, i) => toolMessage({ id: nextId('t'), toolCallId: id, name, content: outputs[i]! })),
  ];
}

/** A scenario file's messages for an SWE-style task: system, task, then `steps` bash rounds. */
export function sweScenarioMessages(steps: number, outputChars: number, thoughtChars = 0): ScenarioFileMessage[] {
  const out: ScenarioFileMessage[] = [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: 'Fix the bug in src/app.py where parse() drops the last field.' },
  ];
  for (let i = 0; i < steps; i++) {
    const id = `call_${i}`;
    out.push({ role: 'assistant', content: `THOUGHT: step ${i} ${'reasoning '.repeat(thoughtChars / 10)}`, toolCalls: [{ id, name: 'bash', arguments: JSON.stringify({ command: `cat file_${i}.py` }) }] });
    out.push({ role: 'tool', toolCallId: id, content: `<returncode>0</returncode>\n<output>\n${`line ${i} `.repeat(outputChars / 8)}\n</output>` });
  }
  out.push({ role: 'assistant', content: 'Done.' });
  return out;
}

export function scenarioOf(messages: ScenarioFileMessage[], id = 'test-scenario', model = 'gpt-4o'): Scenario {
  return parseScenario({ ctxbench: 1, id, model: { name: model }, messages }, `${id}.json`);
}

/**
 * A scenario file's messages whose tool outputs are all facts (a path and a number a line, each
 * unique): what the mock's summaries and checkpoints keep, so their answers run to their full length.
 */
export function factScenarioMessages(steps: number, linesPerOutput: number): ScenarioFileMessage[] {
  const out: ScenarioFileMessage[] = [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: 'Fix the bug.' },
  ];
  for (let i = 0; i < steps; i++) {
    out.push({ role: 'assistant', content: `Step ${i}.`, toolCalls: [{ id: `c${i}`, name: 'bash', arguments: '{}' }] });
    const lines = Array.from({ length: linesPerOutput }, (_, j) => `src/mod_${i}/file_${j}.py: value ${10_000 + i * 100 + j}`);
    out.push({ role: 'tool', toolCallId: `c${i}`, content: lines.join('\n') });
  }
  out.push({ role: 'assistant', content: 'Done.' });
  return out;
}
