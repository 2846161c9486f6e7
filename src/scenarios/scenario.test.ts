import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scenarioDigest } from './digest.js';
import { parseScenario } from './scenario.js';
import type { ScenarioFile } from './schema.js';

const base = (extra: Partial<ScenarioFile> = {}): ScenarioFile => ({
  ctxbench: 1,
  id: 'probe-check',
  model: { name: 'gpt-4o' },
  messages: [
    { role: 'system', content: 'You are an agent.' },
    { role: 'user', content: 'Find the port.' },
    { role: 'assistant', content: 'Reading.', toolCalls: [{ id: 'c0', name: 'read_file', arguments: '{"path":"app.ini"}' }] },
    { role: 'tool', toolCallId: 'c0', content: 'port=48213' },
    { role: 'assistant', content: 'Checking.', toolCalls: [{ id: 'c1', name: 'bash', arguments: '{"command":"ls"}' }] },
    { role: 'tool', toolCallId: 'c1', content: 'a.py b.py' },
    { role: 'assistant', content: 'The port is 48213.' },
  ],
  ...extra,
});

const probe = (step: number, answer: string, id = 'port') => ({ id, step, question: 'Which port?', answer });

describe('parseScenario', () => {
  describe('probes', () => {
    it('accepts a probe whose answer was planted before its step', () => {
      expect(parseScenario(base({ probes: [probe(1, '48213')] }), 's.json').probes).toEqual([probe(1, '48213')]);
    });

    it('rejects an answer that is never planted before the step, naming the scenario file and the probe', () => {
      expect(() => parseScenario(base({ probes: [probe(0, '48213')] }), 's.json')).toThrow(
        's.json: probes[0] (port): its answer "48213" never appears in the history before step 0',
      );
      expect(() => parseScenario(base({ probes: [probe(2, '99999')] }), 's.json')).toThrow(/probes\[0\] \(port\): its answer "99999" never appears/);
    });

    it('property: accepts a probe exactly when its answer is in a message before its step (content or call arguments)', () => {
      const text = fc.string({ unit: fc.constantFrom('a', 'b', 'c', '"'), maxLength: 8 });
      // Steps: an assistant turn (content, the arguments of its one call, the call's result).
      const steps = fc.array(fc.tuple(text, text, text), { minLength: 1, maxLength: 6 });
      const probes = fc.array(fc.tuple(fc.nat(5), fc.string({ unit: fc.constantFrom('a', 'b', 'c', '"'), minLength: 1, maxLength: 3 })), { maxLength: 4 });
      fc.assert(
        fc.property(steps, probes, (turns, asked) => {
          const messages: ScenarioFile['messages'] = [{ role: 'user', content: 'Start.' }];
          turns.forEach(([content, args, result], i) => {
            messages.push({ role: 'assistant', content, toolCalls: [{ id: `c${i}`, name: 'bash', arguments: args }] }, { role: 'tool', toolCallId: `c${i}`, content: result });
          });
          const valid = asked.filter(([step]) => step < turns.length);
          const file = base({ messages, probes: valid.map(([step, answer], i) => probe(step, answer, `p${i}`)) });
          // The definition, searched naively: any text of a message before the step's assistant message.
          const planted = valid.every(([step, answer]) => ['Start.', ...turns.slice(0, step).flat()].some((t) => t.includes(answer)));
          if (planted) expect(parseScenario(file, 's.json').probes).toHaveLength(valid.length);
          else expect(() => parseScenario(file, 's.json')).toThrow(/never appears in the history before step/);
        }),
        { numRuns: 400 },
      );
    });

    it('rejects a step past the last step, and duplicate probe ids', () => {
      expect(() => parseScenario(base({ probes: [probe(3, '48213')] }), 's.json')).toThrow('s.json: probes[0] (port): step 3 is past the last step (2)');
      expect(() => parseScenario(base({ probes: [probe(1, '48213'), probe(2, '48213')] }), 's.json')).toThrow('probes[1] (port): duplicate probe id');
    });

    it('rejects a malformed probe with the field named', () => {
      expect(() => parseScenario(base({ probes: [{ id: 'p', step: -1, question: 'q', answer: 'a' }] }), 's.json')).toThrow(/^s\.json: probes\[0\]\.step: /);
    });
  });

  describe('the model', () => {
    it('takes a context window up to what the results database stores, and names the field past it', () => {
      expect(parseScenario(base({ model: { name: 'gpt-4o', contextWindow: 2 ** 31 - 1 } }), 's.json').model.contextWindow).toBe(2 ** 31 - 1);
      expect(() => parseScenario(base({ model: { name: 'gpt-4o', contextWindow: 2 ** 31 } }), 's.json')).toThrow(
        /^s\.json: model\.contextWindow: at most 2147483647 tokens \(what the results database stores\)$/,
      );
    });
  });

  describe('pairing of the recorded history', () => {
    it('rejects a history with an orphan tool result, naming the violation', () => {
      const messages = [...base().messages];
      messages.splice(2, 1); // drop the assistant message that made call c0
      expect(() => parseScenario(base({ messages }), 's.json')).toThrow(/^s\.json: messages: recorded history breaks tool-call pairing: unmatched_tool_result/);
    });
  });

  describe('message order', () => {
    it('regression: rejects a system message after a conversation that opened on another role, naming the message', () => {
      const [system, user, ...rest] = base().messages;
      expect(() => parseScenario(base({ messages: [user!, system!, ...rest] }), 's.json')).toThrow(
        's.json: messages[1]: a system message, but the conversation opens with a user message; the system prompt must come first (messages[0])',
      );
    });

    it('keeps a system prompt first, later system (developer) messages, and a scenario with no system message', () => {
      const [system, user, ...rest] = base().messages;
      expect(parseScenario(base({ messages: [system!, user!, { role: 'system', content: 'Reminder.' }, ...rest] }), 's.json').messages[2]!.role).toBe('system');
      expect(parseScenario(base({ messages: [user!, ...rest] }), 's.json').messages[0]!.role).toBe('user');
    });
  });

  describe('tool definitions', () => {
    const tools = [{ name: 'bash', description: 'Run a shell command.', parameters: { type: 'object', properties: { command: { type: 'string' } } } }, { name: 'read_file' }];

    it('keeps the tools a scenario declares, frozen, and part of its content digest', () => {
      const scenario = parseScenario(base({ tools }), 's.json');
      expect(scenario.tools).toEqual(tools);
      expect(Object.isFrozen(scenario.tools)).toBe(true);
      expect(scenarioDigest(scenario)).not.toBe(scenarioDigest(parseScenario(base(), 's.json')));
    });

    it('has none when the file declares none, and the digest of a file without tools is what it was', () => {
      const scenario = parseScenario(base(), 's.json');
      expect(scenario.tools).toBeUndefined();
      expect('tools' in scenario).toBe(false);
    });

    it('rejects a tool without a name, or with unknown fields, naming the field', () => {
      expect(() => parseScenario(base({ tools: [{ description: 'x' } as never] }), 's.json')).toThrow(/^s\.json: tools\[0\]\.name: /);
      expect(() => parseScenario(base({ tools: [{ name: 'bash', input_schema: {} } as never] }), 's.json')).toThrow(/^s\.json: tools\[0\]: /);
    });
  });
});
