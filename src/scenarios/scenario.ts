/**
 * A validated scenario: the recorded history as frozen messages with stable ids, plus what it targets.
 */
import { scenarioInvalid } from '../core/errors.js';
import {
  assistantMessage,
  systemMessage,
  toolMessage,
  userMessage,
  type Message,
} from '../core/messages.js';
import { multiSearch } from '../core/multi-search.js';
import { checkPairing, describeViolations } from '../core/pairing.js';
import type { ToolDefinition } from '../core/tools.js';
import { describeIssue } from '../core/zod-issue.js';
import { jsonText } from './json-text.js';
import { scenarioFileSchema, type ParsedScenarioFile, type Probe } from './schema.js';

export interface Scenario {
  readonly id: string;
  readonly title: string;
  /** The file it was loaded from (for error messages and the report). */
  readonly file: string;
  readonly source?: ParsedScenarioFile['source'];
  readonly model: { readonly name: string; readonly contextWindow?: number | undefined };
  readonly outcome?: string | undefined;
  readonly tags: readonly string[];
  readonly probes: readonly Probe[];
  /** The tool definitions its agent requests send; absent when the recording has none. */
  readonly tools?: readonly ToolDefinition[] | undefined;
  readonly messages: readonly Message[];
}

/** Validates raw file data (already parsed from JSON/YAML) and builds the scenario. */
export function parseScenario(data: unknown, file: string): Scenario {
  const parsed = scenarioFileSchema.safeParse(data);
  if (!parsed.success) throw scenarioInvalid(file, describeIssue(parsed.error));
  return materialize(parsed.data, file);
}

/** Message ids are positional ("m0007"), so they are stable for a given file. */
export function messageId(index: number): string {
  return `m${String(index).padStart(4, '0')}`;
}

function materialize(data: ParsedScenarioFile, file: string): Scenario {
  const callNames = new Map<string, string>();
  const messages: Message[] = data.messages.map((m, index) => {
    const id = messageId(index);
    switch (m.role) {
      case 'system':
        return systemMessage({ id, content: m.content });
      case 'user':
        return userMessage({ id, content: m.content });
      case 'assistant': {
        const toolCalls = m.toolCalls.map((c, j) => ({
          id: c.id,
          name: c.name,
          arguments: typeof c.arguments === 'string' ? c.arguments : jsonText(c.arguments, file, `messages[${index}].toolCalls[${j}].arguments`),
        }));
        toolCalls.forEach((c) => callNames.set(c.id, c.name));
        return assistantMessage({ id, content: m.content, toolCalls, usage: m.usage });
      }
      case 'tool':
        return toolMessage({ id, toolCallId: m.toolCallId, name: m.name ?? callNames.get(m.toolCallId) ?? 'tool', content: m.content });
    }
  });
  if (!messages.some((m) => m.role === 'assistant')) {
    throw scenarioInvalid(file, 'messages: no assistant turn to replay');
  }
  checkSystemPromptFirst(messages, file);
  const violations = checkPairing(messages);
  if (violations.length > 0) {
    throw scenarioInvalid(file, `messages: recorded history breaks tool-call pairing: ${describeViolations(violations.slice(0, 3))}`);
  }
  checkProbes(data.probes, messages, file);
  return Object.freeze({
    id: data.id,
    title: data.title ?? data.id,
    file,
    source: data.source,
    model: data.model,
    outcome: data.outcome,
    tags: data.tags,
    probes: Object.freeze(data.probes),
    // Left out when absent, so a scenario without tools keeps its digest.
    ...(data.tools === undefined ? {} : { tools: Object.freeze(data.tools.map((t) => Object.freeze(t))) }),
    messages: Object.freeze(messages),
  });
}

/**
 * The system prompt opens the conversation: every request starts with it, and a strategy that starts a
 * new session re-reads it from there. A system message after a conversation that opened on another
 * role is refused (providers reject such a request); later system or developer messages after a
 * system prompt are kept as they are.
 */
function checkSystemPromptFirst(messages: readonly Message[], file: string): void {
  const first = messages.findIndex((m) => m.role === 'system');
  if (first <= 0) return;
  throw scenarioInvalid(file, `messages[${first}]: a system message, but the conversation opens with a ${messages[0]!.role} message; the system prompt must come first (messages[0])`);
}

/**
 * The index of the first message that holds each of `answers` (in its content or a tool call's
 * arguments); an answer held by none is absent. One pass over the history for all answers at once
 * (multi-search.ts), stopping once every answer is found: a probe is asked long after its fact is
 * planted, and searching back from each probe cost time quadratic in the history's length (a
 * 10,000-step scenario: 242 ms).
 */
function firstHolders(messages: readonly Message[], answers: readonly string[]): Map<string, number> {
  const first = new Map<string, number>();
  const search = multiSearch(answers);
  const hold = (text: string, at: number): void => {
    for (const index of search.find(text)) if (!first.has(answers[index]!)) first.set(answers[index]!, at);
  };
  for (let at = 0; at < messages.length && first.size < answers.length; at++) {
    const m = messages[at]!;
    hold(m.content, at);
    if (m.role === 'assistant') m.toolCalls.forEach((call) => hold(call.arguments, at));
  }
  return first;
}

/**
 * A probe must be asked at a step the replay reaches, and its answer must have been planted: present
 * in the history before that step (else no strategy could pass it, and the probe measures nothing).
 */
function checkProbes(probes: readonly Probe[], messages: readonly Message[], file: string): void {
  const starts = messages.flatMap((m, i) => (m.role === 'assistant' ? [i] : []));
  const ids = new Set<string>();
  const holders = firstHolders(messages, [...new Set(probes.map((p) => p.answer))]);
  probes.forEach((probe, i) => {
    const where = `probes[${i}] (${probe.id})`;
    if (ids.has(probe.id)) throw scenarioInvalid(file, `${where}: duplicate probe id`);
    ids.add(probe.id);
    const before = starts[probe.step];
    if (before === undefined) throw scenarioInvalid(file, `${where}: step ${probe.step} is past the last step (${starts.length - 1})`);
    const planted = holders.get(probe.answer);
    if (planted === undefined || planted >= before) throw scenarioInvalid(file, `${where}: its answer "${probe.answer.slice(0, 60)}" never appears in the history before step ${probe.step}`);
  });
}
