import { describe, expect, it } from 'vitest';
import { assistantMessage, systemMessage, toolMessage, userMessage, type Message } from '../core/messages.js';
import { probePrompt, replyHolds } from '../core/probe-question.js';
import { answerProbe, answerProbeRequest, UNKNOWN_REPLY } from './probe-answerer.js';

let n = 0;
const call = (name: string, args: object, output: string): Message[] => {
  const id = `c${++n}`;
  return [
    assistantMessage({ id: `a${n}`, content: `Running ${name}.`, toolCalls: [{ id, name, arguments: JSON.stringify(args) }] }),
    toolMessage({ id: `t${n}`, toolCallId: id, name, content: output }),
  ];
};
const task = [systemMessage({ id: 's', content: 'You are an agent. Be careful with `config` values.' }), userMessage({ id: 'u', content: 'Fix the flaky tests.' })];

describe('answerProbe', () => {
  it('answers a config question with the line that sets the key', () => {
    const context = [...task, ...call('read_file', { path: 'config/staging.toml' }, 'name = "svc"\ntanager_timeout_ms = 942599\nretries = 3')];
    const reply = answerProbe(context, 'What value is `tanager_timeout_ms` set to in config/staging.toml?');
    expect(reply).toBe('tanager_timeout_ms = 942599');
  });

  it('prefers the definition over the call sites of a function', () => {
    const grep = ['src/a.ts:3:    reconcileNimbusBuckets(x, y)', 'src/legacy/nimbus/sorrel_store_6289.ts:12:export function reconcileNimbusBuckets(batch: Batch) {', 'src/b.ts:9:    reconcileNimbusBuckets(p, q)'].join('\n');
    const reply = answerProbe([...task, ...call('grep', { pattern: 'reconcileNimbusBuckets' }, grep)], 'Which file defines `reconcileNimbusBuckets`?');
    expect(replyHolds(reply, 'src/legacy/nimbus/sorrel_store_6289.ts')).toBe(true);
  });

  it('reads a tool output in the light of the call that produced it', () => {
    const context = [
      ...task,
      ...call('bash', { command: 'npx vitest run test/other.test.ts' }, 'PASS test/other.test.ts\nUsing --randomly-seed=1111111'),
      ...call('bash', { command: 'npx vitest run test/sessions.test.ts --sequence.shuffle' }, 'FAIL\nUsing --randomly-seed=5356008\n1 failed'),
      ...call('bash', { command: 'ls' }, 'src\ntest'),
    ];
    const reply = answerProbe(context, 'Which --randomly-seed value did the flaky run of test/sessions.test.ts print?');
    expect(replyHolds(reply, '5356008')).toBe(true);
  });

  it('says unknown when nothing in the context matches, and never reads the system prompt', () => {
    expect(answerProbe(task, 'What request_id did the 503 error carry?')).toBe(UNKNOWN_REPLY);
    expect(answerProbe(task, 'Which `config` values?')).toBe(UNKNOWN_REPLY);
  });

  it('cuts a long line around its match, keeping the value', () => {
    const line = `${'x=1 '.repeat(200)}status=503 upstream=nimbus request_id=req_0123456789ab ${'y=2 '.repeat(200)}`;
    const reply = answerProbe([...task, ...call('bash', { command: 'tail logs/app.log' }, line)], 'What request_id did the 503 error from the nimbus upstream carry?');
    expect(reply.length).toBeLessThanOrEqual(240);
    expect(reply).toContain('req_0123456789ab');
  });
});

describe('answerProbeRequest', () => {
  it('answers a request that ends with a probe prompt, from the messages before it', () => {
    const context = [...task, ...call('read_file', { path: 'a.ini' }, 'port = 8421')];
    expect(answerProbeRequest([...context, userMessage({ id: 'q', content: probePrompt('Which `port`?') })])).toBe('port = 8421');
  });

  it('leaves any other request alone', () => {
    expect(answerProbeRequest([...task, userMessage({ id: 'q', content: 'Summarize the work so far.' })])).toBeUndefined();
    expect(answerProbeRequest(task.slice(0, 1))).toBeUndefined();
  });
});
