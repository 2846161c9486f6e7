/**
 * The deterministic answer the mock and the local model server give a probe question: the line of the
 * context that best matches the question's words, cut to a window around its best match. A word counts
 * for more when it is rare in the context (inverse line frequency: a function's name matches every call
 * site, "defined" only the line that says where) and when the question quotes it in backticks; the most
 * recent line wins a tie. Like a model without tools, it answers only from what the context holds: a
 * fact lost to compaction or only in an offloaded file gets "unknown".
 */
import type { Message } from '../core/messages.js';
import { questionOf } from '../core/probe-question.js';

const STOPWORDS = new Set(
  'the and for did does what which who whom whose when where why how value set print printed carry carried from with that this into was were are has have had its run'.split(' '),
);
const WORD = /[a-z0-9_][a-z0-9_./=-]*[a-z0-9_]|[a-z0-9_]/g;
/** Identifiers quoted in the question (`tanager_timeout_ms`) say what the question is about. */
const QUOTED_WEIGHT = 3;
const REPLY_CHARS = 240;
export const UNKNOWN_REPLY = 'unknown';

interface Keyword {
  /** The word and the phrases that say the same ("defines": "def ", "function "...); any one matches. */
  readonly texts: readonly string[];
  readonly weight: number;
}

/** Words a question uses for what the context writes otherwise (a definition is `def f(` or `function f(`). */
const SYNONYMS: Readonly<Record<string, readonly string[]>> = { defin: ['def ', 'function ', 'class '] };

/** A plural or inflected word also matches its stem ("defines" finds "defined"). */
function stem(word: string): string {
  if (word.length > 5 && word.endsWith('es')) return word.slice(0, -2);
  if (word.length > 4 && word.endsWith('s')) return word.slice(0, -1);
  return word;
}

export function keywords(question: string): Keyword[] {
  const quoted = new Set([...question.matchAll(/`([^`]+)`/g)].map((m) => m[1]!.toLowerCase()));
  const byText = new Map<string, number>();
  for (const word of question.toLowerCase().match(WORD) ?? []) {
    const text = stem(word.replace(/^[-./=]+/, ''));
    if (text.length < 3 || STOPWORDS.has(text)) continue;
    byText.set(text, Math.max(byText.get(text) ?? 0, quoted.has(word) ? QUOTED_WEIGHT : 1));
  }
  return [...byText].map(([text, weight]) => ({ texts: [text, ...(SYNONYMS[text] ?? [])], weight }));
}

const matches = (lower: string, k: Keyword): boolean => k.texts.some((t) => lower.includes(t));
/** `key=value`, `key: value`, `key = value`: the line gives the keyword a value. */
const assigns = (lower: string, k: Keyword): boolean =>
  k.texts.some((t) => {
    const at = lower.indexOf(t);
    return at >= 0 && /^\s*[=:]\s*\S/.test(lower.slice(at + t.length));
  });

interface Line {
  readonly line: string;
  readonly lower: string;
  /** The rest of its message, and for a tool result the call that produced it: what the line is about. */
  readonly about: string;
}

function linesOf(context: readonly Message[]): Line[] {
  const calls = new Map(context.flatMap((m) => (m.role === 'assistant' ? m.toolCalls.map((c) => [c.id, `${c.name} ${c.arguments}`] as const) : [])));
  return context.flatMap((message) => {
    if (message.role === 'system') return [];
    const texts = [message.content, ...(message.role === 'assistant' ? message.toolCalls.map((c) => c.arguments) : [])];
    const about = [...texts, message.role === 'tool' ? (calls.get(message.toolCallId) ?? '') : ''].join('\n').toLowerCase();
    return texts.flatMap((t) => t.split('\n')).map((line) => ({ line, lower: line.toLowerCase(), about }));
  });
}

/** `line` cut to REPLY_CHARS around the first occurrence of its heaviest keyword. */
function excerpt({ line, lower }: Line, words: readonly Keyword[]): string {
  const trimmed = line.trim();
  if (trimmed.length <= REPLY_CHARS) return trimmed;
  const heaviest = words.filter((k) => matches(lower, k)).sort((a, b) => b.weight - a.weight)[0]!;
  const at = Math.max(0, ...heaviest.texts.map((t) => lower.indexOf(t)));
  const start = Math.max(0, Math.min(at - REPLY_CHARS / 3, line.length - REPLY_CHARS));
  return line.slice(start, start + REPLY_CHARS).trim();
}

/**
 * Answers `question` from `context` (the probe prompt itself excluded by the caller). A line scores
 * each keyword it holds (more when it assigns the keyword a value) and half for each keyword only its
 * message or the tool call behind it holds: "Using --randomly-seed=..." answers for the test the call ran.
 */
export function answerProbe(context: readonly Message[], question: string): string {
  const words = keywords(question);
  const lines = linesOf(context);
  const frequency = new Map(words.map((k) => [k, lines.filter((l) => matches(l.lower, k)).length]));
  const rarity = (k: Keyword): number => Math.log(1 + lines.length / Math.max(1, frequency.get(k)!));
  let best = { score: 0, at: -1 };
  lines.forEach(({ lower, about }, at) => {
    let score = 0;
    for (const k of words) {
      if (matches(lower, k)) score += k.weight * rarity(k) * (assigns(lower, k) ? 1.5 : 1);
      else if (matches(about, k)) score += 0.5 * k.weight * rarity(k);
    }
    // A line that holds no keyword itself is no answer, whatever its message is about.
    if (score > 0 && words.some((k) => matches(lower, k)) && score >= best.score) best = { score, at };
  });
  return best.at < 0 ? UNKNOWN_REPLY : excerpt(lines[best.at]!, words);
}

/** The answer to a probe request (its last message a probe prompt), or undefined for any other request. */
export function answerProbeRequest(messages: readonly Message[]): string | undefined {
  const last = messages.at(-1);
  const question = last?.role === 'user' ? questionOf(last.content) : undefined;
  return question === undefined ? undefined : answerProbe(messages.slice(0, -1), question);
}
