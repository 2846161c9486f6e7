import { describe, expect, it } from 'vitest';
import type { ScenarioFileMessage } from '../schema.js';
import { isOpenAiMessage, readText, readToolCalls, uniqueCallIds } from './openai.js';
import { fileStem, onlyRun, runId, safeId } from './runs.js';

const call = (id: string) => ({ id, name: 'bash', arguments: '{}' });
const result = (toolCallId: string, content = ''): ScenarioFileMessage => ({ role: 'tool', toolCallId, content });

describe('uniqueCallIds', () => {
  it('renames a reused id and the results after that turn, leaving unique ids alone', () => {
    const messages: ScenarioFileMessage[] = [
      { role: 'assistant', content: '', toolCalls: [call('a'), call('b')] },
      result('a'),
      result('b'),
      { role: 'assistant', content: '', toolCalls: [call('a')] },
      result('a', 'second'),
      { role: 'user', content: 'go on' },
      { role: 'assistant', content: '', toolCalls: [call('a'), call('a-2')] },
      result('a'),
      result('a-2'),
    ];
    const out = uniqueCallIds(messages);
    expect(out.flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []).map((c) => c.id) : m.role === 'tool' ? [`=${m.toolCallId}`] : []))).toEqual(
      ['a', 'b', '=a', '=b', 'a-2', '=a-2', 'a-3', 'a-2-2', '=a-3', '=a-2-2'],
    );
    expect(out[4]).toEqual({ role: 'tool', toolCallId: 'a-2', content: 'second' });
    expect(uniqueCallIds(messages.slice(0, 3))).toEqual(messages.slice(0, 3));
  });

  it('answers a call id repeated within one turn in order', () => {
    const out = uniqueCallIds([{ role: 'assistant', content: '', toolCalls: [call('x'), call('x')] }, result('x', '1'), result('x', '2')]);
    expect(out).toEqual([
      { role: 'assistant', content: '', toolCalls: [call('x'), call('x-2')] },
      { role: 'tool', toolCallId: 'x', content: '1' },
      { role: 'tool', toolCallId: 'x-2', content: '2' },
    ]);
  });
});

describe('OpenAI message reading', () => {
  it('accepts OpenAI roles and content parts only', () => {
    expect(isOpenAiMessage({ role: 'tool', tool_call_id: 'a', content: 'x' })).toBe(true);
    expect(isOpenAiMessage({ role: 'user', content: [{ type: 'text', text: 'x' }, { type: 'image_url', image_url: {} }] })).toBe(true);
    expect(isOpenAiMessage({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'a' }] })).toBe(false);
    expect(isOpenAiMessage({ role: 'function', content: 'x' })).toBe(false);
  });

  it('reads content and tool calls, naming the field that is wrong', () => {
    expect(readText([{ type: 'text', text: 'a' }, { type: 'image_url' }, { type: 'text', text: 'b' }], 'f', 'c')).toBe('a\nb');
    expect(readText(null, 'f', 'c')).toBe('');
    expect(() => readText(3, 'f', 'c')).toThrow('f: c: expected a string or a list of parts');
    expect(readToolCalls(null, 'f', 't')).toEqual([]);
    expect(readToolCalls([{ id: 'a', function: { name: 'n', arguments: { x: 1 } } }], 'f', 't')).toEqual([{ id: 'a', name: 'n', arguments: '{"x":1}' }]);
    expect(() => readToolCalls([{ id: 'a', function: { name: 'n' } }], 'f', 't')).toThrow('f: t[0].function.arguments: expected JSON text');
  });
});

describe('run ids', () => {
  it('makes file names and run keys into valid ids', () => {
    expect(safeId('my run (1)')).toBe('my-run-1-');
    expect(fileStem('/x/gpt-4o-airline.json')).toBe('gpt-4o-airline');
    expect(fileStem('/x/a.traj', '.traj')).toBe('a');
    expect(runId('/x/chats v2.jsonl', 3)).toBe('chats-v2@3');
    expect(onlyRun([1], 'f')).toBe(1);
    expect(() => onlyRun([], 'f')).toThrow('f: holds 0 runs');
  });
});
