/**
 * A scenario's history as a replay walks it: the messages before the first assistant turn, then each
 * recorded turn with what followed it. Apart from scenario.ts (which validates files with zod), so a
 * worker thread that replays scenarios does not load the validator.
 */
import type { AssistantMessage, Message } from '../core/messages.js';
import type { Scenario } from './scenario.js';

/** One replay step: the recorded assistant turn at `index`, and the messages that follow it. */
export interface Turn {
  readonly index: number;
  readonly assistant: AssistantMessage;
  /** Tool results and user messages up to the next assistant turn. */
  readonly after: readonly Message[];
}

/** The messages before the first assistant turn (system prompt, task). */
export function prelude(scenario: Scenario): readonly Message[] {
  const first = scenario.messages.findIndex((m) => m.role === 'assistant');
  return scenario.messages.slice(0, first);
}

/** The recorded assistant turns in order, each with what followed it. */
export function turns(scenario: Scenario): Turn[] {
  const out: { index: number; assistant: AssistantMessage; after: Message[] }[] = [];
  scenario.messages.forEach((m, index) => {
    if (m.role === 'assistant') out.push({ index, assistant: m, after: [] });
    else out.at(-1)?.after.push(m);
  });
  return out.map((t) => Object.freeze({ ...t, after: Object.freeze(t.after) }));
}
