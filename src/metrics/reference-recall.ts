/**
 * Reference recall (design DEFINITION "Success"): when a recorded assistant turn uses a distinctive
 * string (path, identifier, number, hash) that first appeared in an earlier tool output, is that string
 * still in the context the strategy sent at that step? The fraction kept is how much of what the real
 * agent actually relied on survived. No labels needed: the targets come from the recording itself.
 *
 * Rules (the definition, made precise):
 * 1. Facts are what core/facts.ts `extractFacts` finds. A message's facts come from its content; an
 *    assistant turn's also from its tool calls' arguments, decoded: every string or number value of
 *    the JSON arguments is read on its own (a `\n` escape would otherwise glue the next word to an
 *    `n`, and a `view_range: [1265, 1300]` holds numbers); arguments that are not JSON are read as
 *    text. A path's leading `./` is dropped (`./django/x.py` and `django/x.py` are one fact).
 * 2. A fact FIRST APPEARS in the first message of the history (in order: system prompt, task, turns,
 *    tool results, later user messages) it is extracted from. Only a first appearance in a tool
 *    message makes it a reference: a fact first seen in the system prompt, the task, a user message
 *    or an earlier assistant turn (the agent's own words, a file it wrote) is not one.
 * 3. The TARGETS of an assistant turn are the facts it uses (rule 1) whose first appearance (rule 2)
 *    is a tool message before it. Each target is listed once per turn, in the order the turn uses it.
 *    The turn's own tool results come after it and never count for it.
 * 4. Paths made longer: a path the turn uses that appeared nowhere before resolves through its
 *    longest '/'-suffix that did appear before (down to the bare file name); when that suffix first
 *    appeared in a tool message, the suffix is the target. The agent cats
 *    `astropy/coordinates/builtin_frames/itrs.py` because `ls -R` listed `itrs.py` under that folder,
 *    or opens `/workspace/repo/django/core/validators.py` because `find` printed
 *    `./django/core/validators.py`: the suffix is the string the tool output showed. A later use of
 *    the same longer path targets the same suffix.
 * 5. A target is PRESENT in a context when it occurs verbatim (as a substring) in some message's
 *    content or tool-call arguments, whatever message holds it (the tool output, a summary, the
 *    agent's own later mention). Facts hold no whitespace or JSON-escaped characters, so the raw
 *    argument text is searched as is.
 * Every step appears in the map, with an empty list when the turn references nothing.
 */
import { extractFacts, factsAt, ownedFactSpans } from '../core/facts.js';
import type { Message } from '../core/messages.js';
import { unchangedPrefix } from '../core/append-only.js';
import type { Scenario } from '../scenarios/scenario.js';
import { mentions, type Mentions } from './context-text.js';

/** The texts an assistant's tool-call arguments are read as (rule 1): each JSON string or number value. */
export function argumentTexts(args: string): string[] {
  let value: unknown;
  try {
    value = JSON.parse(args);
  } catch {
    return [args];
  }
  const out: string[] = [];
  const visit = (v: unknown): void => {
    if (typeof v === 'string') out.push(v);
    else if (typeof v === 'number') out.push(String(v));
    else if (Array.isArray(v)) v.forEach(visit);
    else if (typeof v === 'object' && v !== null) Object.values(v).forEach(visit);
  };
  visit(value);
  return out;
}

const normalize = (fact: string): string => (fact.startsWith('./') ? fact.replace(/^(?:\.\/)+/, '') : fact);

/** The facts a message holds (rule 1), normalized, unique, in order of first appearance. */
export function messageFacts(message: Message): string[] {
  const facts = new Set<string>();
  // The content's spans are kept for the message: the mock summarizer reads its lines from them.
  for (const fact of factsAt(message.content, ownedFactSpans(message, message.content))) facts.add(normalize(fact));
  if (message.role === 'assistant') for (const call of message.toolCalls) for (const text of argumentTexts(call.arguments)) for (const fact of extractFacts(text)) facts.add(normalize(fact));
  return [...facts];
}

/**
 * What each fact seen so far stands for: the target string when it first appeared in a tool message
 * (itself, or for a made-absolute path the suffix the tool showed), null when it did not.
 */
type FirstSeen = Map<string, string | null>;

/** Rule 4: what a never-seen path stands for, through its longest '/'-suffix seen before (null: nothing). */
function suffixTarget(fact: string, seen: FirstSeen): string | null {
  if (!fact.includes('/')) return null;
  for (let cut = fact.indexOf('/'); cut !== -1; cut = fact.indexOf('/', cut + 1)) {
    const target = seen.get(fact.slice(cut + 1));
    if (target !== undefined) return target;
  }
  return null;
}

/**
 * The targets of every assistant turn of `messages` (key: agent step, 0-based, in history order),
 * in one pass over the history.
 */
export function referenceTargetsOf(messages: readonly Message[]): ReadonlyMap<number, readonly string[]> {
  const seen: FirstSeen = new Map();
  const targets = new Map<number, readonly string[]>();
  for (const message of messages) {
    const facts = messageFacts(message);
    if (message.role !== 'assistant') {
      const target = message.role === 'tool';
      for (const fact of facts) if (!seen.has(fact)) seen.set(fact, target ? fact : null);
      continue;
    }
    const used = new Set<string>();
    for (const fact of facts) {
      let target = seen.get(fact);
      if (target === undefined) {
        target = suffixTarget(fact, seen);
        seen.set(fact, target);
      }
      if (target !== null) used.add(target);
    }
    targets.set(targets.size, Object.freeze([...used]));
  }
  return targets;
}

/** The targets of every recorded assistant turn, keyed by agent step as `turns(scenario)` orders them. */
export function referenceTargets(scenario: Scenario): ReadonlyMap<number, readonly string[]> {
  return referenceTargetsOf(scenario.messages);
}

/** How many of `targets` occur verbatim in `context` (its messages' content or tool-call arguments). */
export function presentInContext(targets: readonly string[], context: readonly Message[]): number {
  let present = 0;
  // Message by message from the newest, where a reference usually is: no joined copy of the context
  // per step, and most searches stop early.
  for (const target of targets) {
    for (let i = context.length - 1; i >= 0; i--) {
      if (mentions(context[i]!, target)) {
        present++;
        break;
      }
    }
  }
  return present;
}

/** presentInContext over one set of targets: how many of `targets` messages `from` on of the context hold. */
export type TargetsPresent = (targets: readonly string[], context: readonly Message[], from?: number) => number;

/**
 * presentInContext answered by `mentions` (a mentionsIndex of a scenario's strings: each message
 * searched once for all of them): a target no message of the context holds costs a lookup per
 * message, not a read of every message's text at every step.
 */
export function targetsPresent(mentions: Mentions): TargetsPresent {
  return (targets, context, from = 0) => {
    let present = 0;
    for (const target of targets) {
      for (let i = context.length - 1; i >= from; i--) {
        if (mentions(context[i]!, target)) {
          present++;
          break;
        }
      }
    }
    return present;
  };
}

/**
 * presentInContext for one run's contexts, step after step. While the context is the same
 * append-only array grown (core/append-only.ts: a strategy that sent the history on unchanged), a
 * target found stays found and one not found is looked for only in what was appended since: a lost
 * target costs the new messages, not the whole context at every step.
 */
export function followRun(present: TargetsPresent): (targets: readonly string[], context: readonly Message[]) => number {
  let last: readonly Message[] | undefined;
  let lastLength = 0;
  /** Per target: found in `last`, or the length of its prefix known not to hold it. */
  const known = new Map<string, true | number>();
  return (targets, context) => {
    if (unchangedPrefix(context, last, lastLength) !== lastLength) known.clear();
    [last, lastLength] = [context, context.length];
    let count = 0;
    for (const target of targets) {
      const before = known.get(target);
      const found = before === true || present([target], context, before ?? 0) > 0;
      known.set(target, found || context.length);
      if (found) count++;
    }
    return count;
  };
}
