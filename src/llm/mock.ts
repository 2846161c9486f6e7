/**
 * The mock LLM: fast, free and deterministic, with its assumptions stated in every report.
 *
 * - Agent requests: replays the recorded assistant turn; usage is the local tokenizer's count.
 * - Probe questions: the line of the context that best matches the question (llm/probe-answer.ts).
 * - Auxiliary requests (summaries, checkpoints): writes the template it is asked for (`expect`),
 *   listing the facts (core/facts.ts) of the messages it was given. Each fact survives with
 *   probability `recall`, decided by a seeded hash of the fact, so the same fact is kept or lost the
 *   same way in every run. When the kept lines do not fit `summaryTokens`, an evenly spread share
 *   of them is kept, so a long span loses facts to length too, from everywhere in it.
 * - Faults for tests: fail, or answer with a tool call, for the purposes named.
 */
import { partsOf } from '../core/composed-text.js';
import { extractFacts, lineFacts, ownedFactSpans, seededUnit } from '../core/facts.js';
import { assistantMessage, strategyOrigin, type Message } from '../core/messages.js';
import { PER_MESSAGE_TOKENS, type TokenCounter } from '../core/tokens.js';
import type { Params } from '../core/params.js';
import { answerProbeRequest } from './probe-answerer.js';
import type { Backend, ChatRequest, ChatResponse, ExpectedAnswer } from '../core/backend.js';

export interface MockOptions {
  /** Share of facts a summary keeps, in [0, 1]. Default 0.8. */
  readonly recall?: number;
  /** Longest summary or checkpoint, in tokens. Default 800. */
  readonly summaryTokens?: number;
  /** Seed of the recall draw. Default 1. */
  readonly seed?: number;
  /** Purposes whose requests throw (a failing summarizer). */
  readonly failPurposes?: readonly string[];
  /** Purposes whose requests are answered with a tool call instead of text. */
  readonly toolCallPurposes?: readonly string[];
}

export const MOCK_DEFAULTS = { recall: 0.8, summaryTokens: 800, seed: 1 } as const;

/** The mock's assumptions, as every report prints them. */
export function describeMock(options: Params): string {
  return (
    'Mock LLM: replays the recorded assistant turns (teacher forcing); token counts are the local tokenizer\'s. ' +
    `Summaries and checkpoints keep each fact of what they summarize with probability ${options['recall']} ` +
    `(seed ${options['seed']}) and are at most ${options['summaryTokens']} tokens long.`
  );
}

export function createMockBackend(counter: TokenCounter, options: MockOptions = {}): Backend & { readonly options: Params } {
  const settings = { ...MOCK_DEFAULTS, ...options };
  const summarize = summaryWriter(counter, settings);
  let auxiliary = 0;
  return {
    name: 'mock',
    options: { recall: settings.recall, summaryTokens: settings.summaryTokens, seed: settings.seed },
    async complete(request: ChatRequest): Promise<ChatResponse> {
      // Counted on first read only: the runner counts "local" usage itself, so a replay never pays
      // for a second pass over every context.
      const usage = (reply: Message) => {
        let prompt: number | undefined;
        return {
          get promptTokens(): number {
            return (prompt ??= counter.countContext(request.messages));
          },
          completionTokens: counter.countMessage(reply) - PER_MESSAGE_TOKENS,
        };
      };
      if (request.recorded) return { message: request.recorded, usage: usage(request.recorded), usageSource: 'local' };

      if (settings.failPurposes?.includes(request.purpose)) throw new Error(`mock: injected failure of the ${request.purpose} request`);
      auxiliary += 1;
      const id = `mock:${request.purpose}:${auxiliary}`;
      const origin = strategyOrigin('mock', request.purpose);
      const message = settings.toolCallPurposes?.includes(request.purpose)
        ? assistantMessage({ id, origin, content: '', toolCalls: [{ id: `${id}:call`, name: 'bash', arguments: '{"command":"ls"}' }] })
        : assistantMessage({ id, origin, content: answerProbeRequest(request.messages) ?? summarize(request.messages, request.expect) });
      return { message, usage: usage(message), usageSource: 'local' };
    },
  };
}

const DEFAULT_SECTIONS: ExpectedAnswer = { sections: ['Summary'] };

export interface Settings {
  readonly recall: number;
  readonly summaryTokens: number;
  readonly seed: number;
}

/** A line of a span that holds facts; `entry` is its summary line, once written. */
interface FactLine {
  readonly line: string;
  readonly facts: readonly string[];
  entry?: Entry | undefined;
}

/** A summary line (the dropped facts cut out) and its tokens with its newline. */
interface Entry {
  readonly text: string;
  readonly cost: number;
}

/** Where one quote's text lies in the line being read: [start, end) of it, and which part of the quote it is. */
interface Anchor {
  readonly owner: object;
  /** "w": the whole quote (one line), "t": its last line. */
  readonly kind: 'w' | 't';
  readonly start: number;
  readonly end: number;
}

/**
 * Reads a span's lines, as `text.split("\n")` over each message's content and each call's arguments
 * would, calling `visit` on those that hold facts. A message's own text, and a text a composed message
 * quotes (core/composed-text.ts: the turns a summary request renders), is split and searched for facts
 * once per owner: every summarizing strategy sends the same messages, each rendered its own way. So is
 * a line where one quote meets literal text ("USER: " and its first line, its last line and what
 * follows): once per owner and literal text around it.
 */
function spanReader(): (span: readonly Message[], visit: (line: FactLine) => void) => void {
  const byOwner = new WeakMap<object, readonly (FactLine | undefined)[]>();
  const seams = new WeakMap<object, Map<string, FactLine | null>>();
  const read = (line: string): FactLine | undefined => {
    const facts = extractFacts(line);
    return facts.length === 0 ? undefined : { line, facts };
  };
  const linesOf = (owner: object, text: string): readonly (FactLine | undefined)[] => {
    let lines = byOwner.get(owner);
    if (lines === undefined) byOwner.set(owner, (lines = lineFacts(text, ownedFactSpans(owner, text))));
    return lines;
  };
  /** `line`, made of one quote of `owner` and literal text that `key` tells apart. */
  const seamOf = (owner: object, key: string, line: string): FactLine | undefined => {
    let known = seams.get(owner);
    if (known === undefined) seams.set(owner, (known = new Map()));
    let found = known.get(key);
    if (found === undefined) known.set(key, (found = read(line) ?? null));
    return found ?? undefined;
  };
  return (span, visit) => {
    const own = (owner: object, text: string): void => {
      for (const line of linesOf(owner, text)) if (line !== undefined) visit(line);
    };
    const fresh = (line: string): void => {
      const found = read(line);
      if (found !== undefined) visit(found);
    };
    for (const m of span) {
      const parts = partsOf(m);
      if (parts === undefined) {
        own(m, m.content);
        if (m.role === 'assistant') m.toolCalls.forEach((c) => own(c, c.arguments));
        continue;
      }
      // A composed text: a quote's inner lines are its own; its first and last join the text around.
      // The line being read so far (`pending`) holds literal text and at most one quote's text
      // (`anchor`) or more (`mixed`: read afresh).
      let pending = '';
      let anchor: Anchor | undefined;
      let mixed = false;
      /** Reads the line `pending + head`, where `head` is literal text. */
      const endLine = (head: string): void => {
        const line = pending + head;
        if (anchor === undefined || mixed) return fresh(line);
        const { owner, kind, start, end } = anchor;
        const found = seamOf(owner, `${kind}${start}:${pending.slice(0, start)}${pending.slice(end)}${head}`, line);
        if (found !== undefined) visit(found);
      };
      for (const part of parts) {
        const text = typeof part === 'string' ? part : part.text;
        const first = text.indexOf('\n');
        if (first < 0) {
          if (typeof part !== 'string') {
            mixed ||= anchor !== undefined;
            anchor = { owner: part.owner, kind: 'w', start: pending.length, end: pending.length + text.length };
          }
          pending += text;
          continue;
        }
        const last = text.lastIndexOf('\n');
        if (typeof part === 'string') {
          endLine(text.slice(0, first));
          text.slice(first + 1, last + 1).split('\n').slice(0, -1).forEach(fresh);
        } else {
          // The quote's first line ends the line: one quote with the literal text before it.
          const head = anchor === undefined && !mixed ? seamOf(part.owner, `h${pending}`, pending + text.slice(0, first)) : read(pending + text.slice(0, first));
          if (head !== undefined) visit(head);
          linesOf(part.owner, text).slice(1, -1).forEach((line) => line !== undefined && visit(line));
        }
        pending = text.slice(last + 1);
        anchor = typeof part === 'string' ? undefined : { owner: part.owner, kind: 't', start: 0, end: pending.length };
        mixed = false;
      }
      endLine('');
    }
  };
}

/**
 * A summary writer (see writeSummary) that remembers, per message, what it read of its lines: for a
 * backend that answers many summary requests quoting the same messages.
 */
export function summaryWriter(counter: TokenCounter, settings: Settings): (messages: readonly Message[], expect: ExpectedAnswer | undefined) => string {
  const readSpan = spanReader();
  const keeps = (fact: string): boolean => seededUnit(settings.seed, fact) < settings.recall;
  const entryOf = (line: FactLine): Entry => {
    if (line.entry === undefined) {
      const redacted = line.facts.filter((f) => !keeps(f)).reduce((l, f) => l.split(f).join('[...]'), line.line.trim());
      const text = `- ${redacted.slice(0, 160)}`;
      line.entry = { text, cost: counter.countText(`${text}\n`) };
    }
    return line.entry;
  };
  /**
   * The lines of the span that carry a fact the seeded draw keeps, each line once. Facts the draw drops
   * are cut out of the lines that are kept, so each fact survives with probability `recall` exactly,
   * whatever else shares its line.
   */
  const keptLines = (span: readonly Message[]): Entry[] => {
    const seen = new Set<string>();
    const kept: Entry[] = [];
    readSpan(span, (line) => {
      let fresh = false;
      for (const fact of line.facts) {
        if (seen.has(fact)) continue;
        seen.add(fact);
        fresh ||= keeps(fact);
      }
      if (fresh) kept.push(entryOf(line));
    });
    return kept;
  };
  return (messages, expect) => {
    const { sections, wrap } = expect ?? DEFAULT_SECTIONS;
    // The last message is the instruction ("summarize ..."); everything before it is the span.
    const span = messages.slice(0, -1).filter((m) => m.role !== 'system');
    const frame = wrap ? [`<${wrap}>`, `</${wrap}>`] : [];
    const headings = sections.map((h) => `## ${h}`);
    let budget = settings.summaryTokens - counter.countText([...frame, ...headings].join('\n'));
    const lines = keptLines(span);
    // Too long for the budget: keep an evenly spread share of the span, not just its beginning.
    const needed = lines.reduce((sum, l) => sum + l.cost, 0);
    const share = needed <= budget ? 1 : budget / needed;
    const bySection = sections.map(() => [] as string[]);
    let credit = 1 - share; // the first line (usually the task) is always kept
    let kept = 0;
    for (const { text, cost } of lines) {
      credit += share;
      if (credit < 1 || cost > budget) continue;
      credit -= 1;
      budget -= cost;
      bySection[kept++ % sections.length]!.push(text);
    }
    const body = headings.flatMap((h, i) => [h, ...bySection[i]!]);
    return wrap ? [frame[0]!, ...body, frame[1]!].join('\n') : body.join('\n');
  };
}

/**
 * The template's sections (every heading, always), the kept lines dealt across them, within budget.
 * Exported for the local model server (src/server), which answers summary requests the same way.
 */
export function writeSummary(messages: readonly Message[], expect: ExpectedAnswer | undefined, counter: TokenCounter, settings: Settings): string {
  return summaryWriter(counter, settings)(messages, expect);
}
