/**
 * What a strategy's hook returned, checked before anything reads it: a plan (`{ messages, events? }`)
 * whose messages are well-formed messages of the four roles, made with the helpers (userMessage,
 * withContent, ...). `bench run`'s guard and the adapters check alike; a problem is one phrase for
 * their error line ("returned a malformed message: messages[3] has no string id").
 */
import { prefixFollower } from './append-only.js';
import type { Message } from './messages.js';

/**
 * A checker of successive plans. The last message list checked is remembered: what the next shares
 * with it (the same objects in the same places, as they were then) is not checked again, so a run's
 * checks cost what its contexts change, not their length. `optional`: no plan (undefined) is one
 * (afterResponse's "nothing to do").
 */
export function createPlanChecker(): (plan: unknown, optional: boolean) => string | undefined {
  const checked = prefixFollower();
  return (plan, optional) => {
    if (plan === undefined && optional) return undefined;
    if (!isObject(plan)) return 'returned no plan ({ messages })';
    if (!Array.isArray(plan.messages)) return 'returned no message list (plan.messages)';
    if (plan.events !== undefined && !Array.isArray(plan.events)) return 'returned events that are not a list';
    const messages = plan.messages as readonly Message[];
    const from = checked.shared(messages);
    for (let i = from; i < messages.length; i++) {
      const bad = messageProblem(messages[i]);
      if (bad !== undefined) return `returned a malformed message: messages[${i}] ${bad}`;
    }
    checked.record(messages, from);
    return undefined;
  };
}

const ROLES: readonly string[] = ['system', 'user', 'assistant', 'tool'] satisfies readonly Message['role'][];

/** What is wrong with `m` as a message that can be sent, or undefined. */
function messageProblem(m: unknown): string | undefined {
  if (!isObject(m)) return 'is not a message';
  if (!ROLES.includes(m.role as string)) return `has role ${JSON.stringify(m.role)} (expected ${ROLES.join(', ')})`;
  if (typeof m.id !== 'string') return 'has no string id';
  if (typeof m.content !== 'string') return 'has no string content';
  if (!isObject(m.origin)) return 'has no origin (make messages with the helpers: userMessage, withContent, ...)';
  if (m.role === 'assistant' && !(Array.isArray(m.toolCalls) && m.toolCalls.every((c: unknown) => isObject(c) && typeof c.id === 'string' && typeof c.name === 'string' && typeof c.arguments === 'string'))) {
    return 'has malformed toolCalls (a list of { id, name, arguments } strings)';
  }
  if (m.role === 'tool' && (typeof m.toolCallId !== 'string' || typeof m.name !== 'string')) return 'has no string toolCallId and name';
  return undefined;
}

export const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;
