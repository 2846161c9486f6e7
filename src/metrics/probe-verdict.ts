/**
 * Probe verdicts in the mock (design DEFINITION "Success"): a probe passes when its answer is
 * answerable from the context sent at its step. How it is answerable, best first:
 * - verbatim: the answer occurs in the content or tool-call arguments of a message that came from the
 *   scenario: one with the scenario origin, or a strategy's edit of a scenario message (masked,
 *   offloaded, compacted...), which keeps the id it replaces; the caller passes the scenario's message
 *   ids (`scenarioMessageIds`). A preview a masking or offloading strategy left in place counts.
 * - summary: it occurs only in messages a strategy inserted (summary, continuation, checkpoint,
 *   scratchpad, marker...): the fact survived because the summarizer kept it.
 * - recoverable: it occurs in no message, but in an offload-store file the context points to, so the
 *   agent can read it back (at the cost of the re-read, `rereadTokens`). A file is pointed to when its
 *   path occurs in the context (with or without its leading '/', as strategies write it), or one of
 *   its folders does, rooted and with its trailing slash (`/conversation_history/`, the pointer a
 *   summary leaves; `/tool_outputs/`, the recovery prompt's): the agent was told where to grep. Each
 *   occurs as a whole, not inside a longer path (a pointer to one file names no other file). The
 *   file holds the answer as written, or JSON-escaped (archived messages are stored as JSON). Among
 *   several such files the verdict names the smallest (the cheapest re-read), then the first by path.
 * - lost: none of these.
 * Substrings are searched message by message (an answer never matches across two messages).
 */
import type { Message } from '../core/messages.js';
import { PER_MESSAGE_TOKENS, type TokenCounter } from '../core/tokens.js';
import type { ProbeCounts } from '../core/run-records.js';
import type { OffloadStore } from '../core/offload-store.js';
import { mentions, type Mentions } from './context-text.js';

export const PROBE_HOWS = ['verbatim', 'summary', 'recoverable', 'lost'] as const;
export type ProbeHow = (typeof PROBE_HOWS)[number];

export interface ProbeVerdict {
  readonly how: ProbeHow;
  /** The offload-store path that holds the answer, when `how` is 'recoverable'. */
  readonly file?: string;
}

/**
 * Probes that passed in a run (design "Success"): where the model was asked, the answers that held the
 * fact; otherwise those still answerable from the context.
 */
export function probesPassed(counts: ProbeCounts): number {
  return counts.answered ?? counts.verbatim + counts.summary + counts.recoverable;
}

/** A probe passes unless its answer is lost: a recoverable fact costs a re-read but is not gone. */
export function passed(how: ProbeHow): boolean {
  return how !== 'lost';
}

/** The ids of a scenario's messages: a context message with one of these came from the scenario (edited or not). */
export function scenarioMessageIds(messages: readonly Message[]): ReadonlySet<string> {
  return new Set(messages.map((m) => m.id));
}

/** Tokens a re-read of `content` adds to the context: the file as one tool result, framing included. */
export function rereadTokens(content: string, counter: TokenCounter): number {
  return PER_MESSAGE_TOKENS + counter.countText(content);
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** Not inside a longer path: no path character before, none after (a sentence's full stop is fine). */
const BEFORE = '(?<![\\w./-])';
const AFTER = '(?![\\w/-]|\\.\\w)';

/**
 * What points at store path `path`: the path itself, with or without its leading '/', or one of its
 * folders, rooted and with its trailing slash (`/a/` or `/a/b/` for `/a/b/c.txt`), each as a whole
 * (not inside a longer path: `/tool_outputs/b.txt` names no other file of `/tool_outputs/`,
 * `repo/tool_outputs/a.txt` is not `/tool_outputs/a.txt`).
 */
function pointers(path: string): RegExp[] {
  const relative = path.replace(/^\/+/, '');
  if (relative === '') return [];
  const patterns = [new RegExp(`${BEFORE}/?${escapeRegExp(relative)}${AFTER}`)];
  if (!path.startsWith('/')) return patterns;
  for (let cut = path.indexOf('/', 1); cut !== -1; cut = path.indexOf('/', cut + 1)) {
    patterns.push(new RegExp(`${BEFORE}${escapeRegExp(path.slice(0, cut + 1))}(?![\\w.-])`));
  }
  return patterns;
}

/** Whether `text` points at store path `path` (see pointers). */
export function pointsAt(text: string, path: string): boolean {
  return pointers(path).some((p) => p.test(text));
}

/**
 * Whether a message of `context` points at `path`: its content or one of its tool calls' arguments
 * (a path holds no line break, so none spans two of them, nor two messages).
 */
export function contextPointsAt(context: readonly Message[], path: string): boolean {
  const patterns = pointers(path);
  const pointing = (text: string): boolean => patterns.some((p) => p.test(text));
  return context.some((m) => pointing(m.content) || (m.role === 'assistant' && m.toolCalls.some((call) => pointing(call.arguments))));
}

/**
 * The files judgeProbe looks for an answer in: a store's, each read and searched, or (`holdAnswer`) an
 * index's files known to hold the answer, as written or JSON-escaped (answer-index.ts), not read.
 */
export type ProbeFiles =
  | Pick<OffloadStore, 'list' | 'read'>
  | { readonly holdAnswer: true; list(): string[]; size(path: string): number | undefined };

/** The length of file `path` if it holds `answer` (or `escaped`), else undefined. */
function sizeHolding(files: ProbeFiles, path: string, answer: string, escaped: string): number | undefined {
  if ('holdAnswer' in files) return files.size(path);
  const content = files.read(path);
  return content !== undefined && (content.includes(answer) || content.includes(escaped)) ? content.length : undefined;
}

/**
 * How `answer` is answerable from `context` (see the module comment). `scenarioIds` are the ids of
 * the scenario's messages (`scenarioMessageIds(scenario.messages)`), so edits of them count as verbatim.
 * `mentionedIn` answers whether a message holds the answer: `mentions`, or a replay's mentionsIndex.
 */
export function judgeProbe(answer: string, context: readonly Message[], files: ProbeFiles, scenarioIds: ReadonlySet<string>, mentionedIn: Mentions = mentions): ProbeVerdict {
  if (answer === '') throw new RangeError('judgeProbe: the answer is empty (every context would hold it)');
  let inserted = false;
  // From the newest message: a probe asks about a recent step more often than about the first ones,
  // and the verdict does not depend on the order (any scenario message wins over inserted ones).
  for (let i = context.length - 1; i >= 0; i--) {
    const m = context[i]!;
    if (!mentionedIn(m, answer)) continue;
    if (m.origin.source === 'scenario' || scenarioIds.has(m.id)) return { how: 'verbatim' };
    inserted = true;
  }
  if (inserted) return { how: 'summary' };
  const escaped = JSON.stringify(answer).slice(1, -1);
  let best: { path: string; size: number } | undefined;
  for (const path of files.list()) {
    const size = sizeHolding(files, path, answer, escaped);
    if (size === undefined || (best !== undefined && size >= best.size)) continue;
    if (contextPointsAt(context, path)) best = { path, size };
  }
  return best ? { how: 'recoverable', file: best.path } : { how: 'lost' };
}
