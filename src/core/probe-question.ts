/**
 * Probe questions put to a live model (design DEFINITION "Success": live = the model's answer to the
 * probe question contains the value). The request is the context the strategy sent at the probe's
 * step plus one user message asking the question; it is the benchmark's measurement, not part of the
 * conversation, so the replay goes on from the context as if it had not been asked.
 */
import { strategyOrigin, userMessage, type Message } from './messages.js';

/** The `purpose` of probe requests (steps table, cache keys, the mock's dispatch). */
export const PROBE_PURPOSE = 'probe';

/** Enough for one line quoting a path, hash or id; a model that rambles is cut, not waited for. */
export const PROBE_MAX_OUTPUT_TOKENS = 96;

const INSTRUCTION =
  'Answer this question about the work so far from the conversation above alone, in one line, quoting the exact value ' +
  '(a path, number, hash or id). If the conversation does not say, answer "unknown".';
const QUESTION_PREFIX = 'Question: ';

export function probePrompt(question: string): string {
  return `${INSTRUCTION}\n${QUESTION_PREFIX}${question}`;
}

/** The question a probe prompt asks, or undefined when `text` is not a probe prompt (a summary request...). */
export function questionOf(text: string): string | undefined {
  if (!text.startsWith(`${INSTRUCTION}\n${QUESTION_PREFIX}`)) return undefined;
  return text.slice(INSTRUCTION.length + 1 + QUESTION_PREFIX.length);
}

/** The probe request: the context as sent, then the question. */
export function probeRequest(context: readonly Message[], probeId: string, question: string): Message[] {
  return [...context, userMessage({ id: `probe:${probeId}`, origin: strategyOrigin('ctxbench', PROBE_PURPOSE), content: probePrompt(question) })];
}

/** Lower case, quotes and backticks dropped, whitespace collapsed: how a value is compared. */
const normalize = (text: string): string => text.toLowerCase().replace(/[`"'*]/g, '').replace(/\s+/g, ' ').trim();

/**
 * Whether a reply gives the expected value: it contains it, case and quoting aside; a numeric value
 * also matches when the reply groups its digits (942,599 or 942 599 for 942599).
 */
export function replyHolds(reply: string, answer: string): boolean {
  const [said, value] = [normalize(reply), normalize(answer)];
  if (value === '') throw new RangeError('replyHolds: the expected answer is empty');
  if (said.includes(value)) return true;
  return /^\d+$/.test(value) && said.replace(/(?<=\d)[, _](?=\d{3}\b)/g, '').includes(value);
}
