/**
 * Reactive replay (README "How a replay works"): before a recorded turn, the mock agent looks for what
 * that turn is about to use (its reference targets and the answers of the probes due there) in the
 * context the strategy built, and recovers what is gone the way a real agent would, one request at a
 * time:
 * - held: the string is in a message that came from the recording (edited or not) or from a re-read;
 * - held by a summary: it is only in a message a strategy wrote; the agent trusts its summary, so
 *   nothing is recovered, but it is counted apart (summaries can be wrong);
 * - an offload pointer leads to it (probe-verdict.ts `judgeProbe`, "recoverable"): a `read_file` of
 *   that store path, answered with the file;
 * - otherwise the recorded call whose result it first appeared in is issued again and answered with
 *   the recorded result (a re-run of `cat`, `grep`, `ls`...);
 * - nowhere (no source, or its re-read did not bring it back this turn): lost, the turn goes ahead.
 * Several strings from one source are recovered by one re-read.
 */
import { assistantMessage, toolMessage, type AssistantMessage, type Message, type ToolMessage } from '../core/messages.js';
import type { IndexedStore } from '../metrics/answer-index.js';
import type { Mentions } from '../metrics/context-text.js';
import { judgeProbe } from '../metrics/probe-verdict.js';
import type { ReferenceSource } from '../metrics/reference-sources.js';

/** One re-read: the request the mock agent makes to get `needs` back. */
export type Recovery =
  | { readonly kind: 'offload'; readonly key: string; readonly path: string; readonly content: string; readonly needs: readonly string[] }
  | { readonly kind: 'rerun'; readonly key: string; readonly source: ReferenceSource; readonly needs: readonly string[] };

/** What a context holds of what a turn needs. */
export interface NeedsCheck {
  readonly held: readonly string[];
  readonly summaryHeld: readonly string[];
  /** The re-reads that would bring the rest back, in the order of the first string each serves. */
  readonly recoveries: readonly Recovery[];
  readonly lost: readonly string[];
}

export interface NeedsInput {
  readonly context: readonly Message[];
  /** The run's store: the files that may hold a string (`holding`, judged unread), and a file's text for its re-read. */
  readonly files: Pick<IndexedStore, 'holding' | 'read'>;
  readonly scenarioIds: ReadonlySet<string>;
  /** Whether a message holds a string (`mentions`, or the replay's index of the scenario's strings). */
  readonly mentionedIn?: Mentions | undefined;
  /** The recorded source of a string, when it came from a tool result. */
  readonly sourceOf: (need: string) => ReferenceSource | undefined;
  /** Recovery keys already re-read for this turn: what they did not bring back is lost, not read again. */
  readonly tried: ReadonlySet<string>;
}

/** Sorts `needs` (strings a turn uses) into held, held by a summary, recoverable and lost in `input.context`. */
export function checkNeeds(needs: readonly string[], input: NeedsInput): NeedsCheck {
  const held: string[] = [];
  const summaryHeld: string[] = [];
  const lost: string[] = [];
  const recoveries = new Map<string, Recovery>();
  const add = (recovery: Recovery, need: string): void => {
    const known = recoveries.get(recovery.key);
    recoveries.set(recovery.key, known ? { ...known, needs: [...known.needs, need] } : recovery);
  };
  for (const need of needs) {
    const verdict = judgeProbe(need, input.context, input.files.holding(need), input.scenarioIds, input.mentionedIn);
    if (verdict.how === 'verbatim') held.push(need);
    else if (verdict.how === 'summary') summaryHeld.push(need);
    else if (verdict.how === 'recoverable' && !input.tried.has(`offload:${verdict.file}`)) {
      const path = verdict.file!;
      add({ kind: 'offload', key: `offload:${path}`, path, content: input.files.read(path) ?? '', needs: [need] }, need);
    } else {
      const source = input.sourceOf(need);
      const key = source ? `rerun:${source.result.id}` : undefined;
      if (source && key && !input.tried.has(key)) add({ kind: 'rerun', key, source, needs: [need] }, need);
      else lost.push(need);
    }
  }
  return { held, summaryHeld, recoveries: [...recoveries.values()], lost };
}

/** The tool name of an offload re-read: the file tool the recovery prompts of seed 002 name. */
export const READ_FILE_TOOL = 'read_file';
/** The tool of a re-read in a large offloaded file: the search the recovery prompts suggest. */
export const GREP_TOOL = 'grep';
/** An offloaded file up to this many characters is read whole; a larger one is searched (about 2,000 tokens). */
export const WHOLE_READ_CHARS = 8000;
/** Characters kept each side of a match in a searched file: a line of context, not the whole archive. */
const EXCERPT_CHARS = 200;

/**
 * What a search of a large offloaded file returns: for each string, its first line holding it (as
 * written or JSON-escaped, as archives store it), numbered, cut to EXCERPT_CHARS each side of the match.
 */
export function searchExcerpt(content: string, needs: readonly string[]): string {
  const lines = content.split('\n');
  const out: string[] = [];
  for (const need of needs) {
    for (const form of [need, JSON.stringify(need).slice(1, -1)]) {
      const at = lines.findIndex((line) => line.includes(form));
      if (at === -1) continue;
      const line = lines[at]!;
      const match = line.indexOf(form);
      const [from, to] = [Math.max(0, match - EXCERPT_CHARS), Math.min(line.length, match + form.length + EXCERPT_CHARS)];
      out.push(`${at + 1}:${from > 0 ? '...' : ''}${line.slice(from, to)}${to < line.length ? '...' : ''}`);
      break;
    }
  }
  return out.join('\n');
}

/**
 * The exchange a re-read adds to the conversation: the agent's call and its result. `id` is unique
 * in the run; both messages count as the agent's own (scenario origin), like the recorded turns.
 */
export function recoveryTurn(recovery: Recovery, id: string): { assistant: AssistantMessage; result: ToolMessage } {
  const callId = `${id}-call`;
  const [name, args, content] =
    recovery.kind === 'rerun'
      ? [recovery.source.call.name, recovery.source.call.arguments, recovery.source.result.content]
      : recovery.content.length <= WHOLE_READ_CHARS
        ? [READ_FILE_TOOL, JSON.stringify({ path: recovery.path }), recovery.content]
        : [GREP_TOOL, JSON.stringify({ pattern: recovery.needs.join('|'), path: recovery.path }), searchExcerpt(recovery.content, recovery.needs)];
  return {
    assistant: assistantMessage({ id, content: '', toolCalls: [{ id: callId, name, arguments: args }] }),
    result: toolMessage({ id: `${id}-result`, toolCallId: callId, name, content }),
  };
}

/** One line for the `reread` event: what was read and for how many strings. */
export function describeRecovery(recovery: Recovery): string {
  const what = recovery.kind === 'offload' ? `${recovery.content.length <= WHOLE_READ_CHARS ? 'read' : 'searched'} ${recovery.path}` : `re-ran ${recovery.source.call.name} (${recovery.source.call.id})`;
  const shown = recovery.needs.slice(0, 3).join(', ');
  return `${what} for ${recovery.needs.length} of the turn's strings: ${shown}${recovery.needs.length > 3 ? ', ...' : ''}`;
}
