/**
 * `masking`: observation masking with restart, as seed 000 specifies.
 *
 * - Soft threshold (0.70): replace the OLDEST unmasked tool outputs with descriptive placeholders,
 *   only as many as needed to get back under the threshold. Reasoning, tool calls and ids stay.
 * - Hard threshold (0.90): inject the wind-down message; at the next request, restart the session:
 *   the system prompt (re-read), a restart marker, and the last N complete interaction cycles.
 * - max_restarts ends the run when reached; autoRestart=false ends it at the hard threshold (a
 *   replay has nobody to confirm the restart).
 *
 * Differences from the seed, on purpose (README "Strategies"): pressure is the last request's prompt
 * tokens PLUS what was appended since (`measure=projected`; `last-prompt` is the seed read literally),
 * and the results of the latest assistant turn are never masked, since the model has not seen them.
 */
import { cycles, rounds, unseenFrom, type Span } from '../core/cut-points.js';
import { strategyOrigin, systemMessage, withContent, type Message, type ToolCall, type ToolMessage } from '../core/messages.js';
import { checkBelow } from '../core/params.js';
import { defineStrategy, type RequestPlan, type StrategyEvent, type StrategyInput } from '../core/strategy.js';
import { answeredCall, placeholder } from './parts/placeholders.js';
import { measurePressure } from './parts/pressure.js';

const NAME = 'masking';

/** Seed 000's wind-down message, injected as a system message at the hard threshold. */
export function windDownMessage(usedFraction: number, remainingTokens: number): string {
  return (
    `[Context window ${Math.round(usedFraction * 100)}% full (~${Math.max(0, remainingTokens)} tokens remaining). ` +
    'Please wrap up your current task and write any important state to workspace files. ' +
    'The session will restart shortly.]'
  );
}

/** Seed 000's restart marker, the first thing a restarted session sees after its system prompt. */
export function restartMarker(session: number, previousTurns: number): string {
  return (
    `[Session restarted. Session #${session}. Previous session ran ${previousTurns} turns. ` +
    'Check your workspace files for progress state.]'
  );
}

const isMasked = (m: Message): boolean => m.origin.source === 'strategy' && m.origin.action === 'masked';

/**
 * Each output's masked form, by the output and the call it answers (all its placeholder depends on),
 * shared by the runs of this thread: one object for all of them lets the token counter's per-message
 * cache count it once, where a sweep would count it again at every setting.
 */
const maskedForms = new WeakMap<ToolMessage, Map<ToolCall | undefined, ToolMessage>>();

function maskedForm(output: ToolMessage, call: ToolCall | undefined): ToolMessage {
  let forms = maskedForms.get(output);
  if (forms === undefined) maskedForms.set(output, (forms = new Map()));
  let masked = forms.get(call);
  if (masked === undefined) forms.set(call, (masked = withContent(output, placeholder(output, call), strategyOrigin(NAME, 'masked'))));
  return masked;
}

interface MaskOutcome {
  readonly messages: readonly Message[];
  readonly tokens: number;
  readonly events: StrategyEvent[];
}

/**
 * Masks the oldest unmasked tool outputs until `tokens` drops below `target`. Returns the same array
 * when nothing was masked (messages are shared, never copied needlessly).
 */
export function maskOldest(
  input: StrategyInput,
  messages: readonly Message[],
  tokens: number,
  target: number,
  /** Per run: each output's masked form, or null when a placeholder would not be shorter. */
  memo: Map<string, Message | null> = new Map(),
): MaskOutcome {
  const { counter } = input;
  const limit = unseenFrom(messages);
  let out: Message[] | undefined;
  const events: StrategyEvent[] = [];
  for (let i = 0; i < limit && tokens >= target; i++) {
    const m = messages[i]!;
    if (m.role !== 'tool' || isMasked(m)) continue;
    if (memo.get(m.id) === null) continue; // a placeholder longer than the output saves nothing
    const masked = memo.get(m.id) ?? maskedForm(m, answeredCall(messages, i));
    const before = counter.countMessage(m);
    const after = counter.countMessage(masked);
    memo.set(m.id, after >= before ? null : masked);
    if (after >= before) continue;
    out ??= [...messages];
    out[i] = masked;
    tokens -= before - after;
    events.push({ kind: 'masked', messageId: m.id, detail: `${m.name} output masked`, tokensBefore: before, tokensAfter: after });
  }
  return { messages: out ?? messages, tokens, events };
}

/**
 * The messages a restarted session carries (seed 000 Pitfall 4: whole cycles only): the last N
 * complete cycles, plus the cycle still in progress, if any. That one (the only cycle of an agent
 * whose every turn calls a tool) is carried as its opening user message plus its last N tool rounds,
 * so the task is not lost and no call is separated from its result.
 */
export function carryover(messages: readonly Message[], turns: number): Message[] {
  if (turns === 0) return [];
  const body = messages.filter((m) => m.role !== 'system');
  const all = cycles(body);
  const current = all.at(-1);
  if (!current) return [];
  const take = (spans: readonly Span[]): Message[] => spans.flatMap((s) => body.slice(s.start, s.end));
  if (current.complete) return take(all.slice(-turns));
  const opener = body[current.start]!.role === 'user' ? [body[current.start]!] : [];
  const inner = rounds(body, current.start + opener.length).slice(-turns);
  return [...take(all.slice(0, -1).slice(-turns)), ...opener, ...take(inner)];
}

export const maskingStrategy = defineStrategy({
  name: NAME,
  seed: '000',
  summary: 'Seed 000: mask the oldest tool outputs at 70%, wind down and restart with the last cycles at 90%.',
  params: {
    softThreshold: { kind: 'fraction', default: 0.7, description: 'Mask oldest tool outputs above this share of the window.' },
    hardThreshold: { kind: 'fraction', default: 0.9, description: 'Wind down, then restart the session, above this share of the window.' },
    carryoverTurns: { kind: 'integer', default: 5, min: 0, max: 1000, description: 'Complete interaction cycles carried into a restarted session.' },
    maxRestarts: { kind: 'integer', default: 'unlimited', min: 0, unlimited: true, description: 'Restarts allowed before the run stops ("unlimited" by default, as in the seed).' },
    autoRestart: { kind: 'boolean', default: true, description: 'Restart without confirmation; false stops the run at the hard threshold.' },
    measure: { kind: 'choice', default: 'projected', values: ['projected', 'last-prompt'], description: 'Context size: last prompt tokens plus what was appended since, or the last prompt tokens alone (seed literal).' },
  },
  checkParams: checkBelow('softThreshold', 'hardThreshold'),
  thresholds: (p) => [
    { label: 'soft (mask)', fraction: p.softThreshold },
    { label: 'hard (restart)', fraction: p.hardThreshold },
  ],
  create(p) {
    let windDownSent = false;
    let restarts = 0;
    let warnedMissingUsage = false;
    const placeholders = new Map<string, Message | null>();

    const restartRefusal = (): string | undefined => {
      if (!p.autoRestart) return 'hard threshold reached and autoRestart=false: the restart waits for a confirmation';
      if (p.maxRestarts !== 'unlimited' && restarts >= p.maxRestarts) return `max_restarts (${p.maxRestarts}) reached`;
      return undefined;
    };

    /** A new session: the system prompt (re-read), the restart marker, the carried cycles. */
    const restart = (input: StrategyInput, from: readonly Message[], why: string): { messages: Message[]; event: StrategyEvent } => {
      restarts += 1;
      const session = input.session + 1;
      const marker = systemMessage({
        id: `${NAME}:restart-marker:${session}`,
        content: restartMarker(session, input.sessionSteps),
        origin: strategyOrigin(NAME, 'restart-marker'),
      });
      const carried = carryover(from, p.carryoverTurns);
      const messages = [...(input.systemPrompt ? [input.systemPrompt, marker] : [marker]), ...carried];
      const event: StrategyEvent = {
        kind: 'restart',
        messageId: marker.id,
        messageIds: carried.map((m) => m.id),
        detail: `session ${session} (${why}): carried ${carried.length} messages`,
        text: marker.content,
        tokensBefore: input.counter.countContext(from),
        tokensAfter: input.counter.countContext(messages),
      };
      return { messages, event };
    };

    return {
      beforeRequest(input: StrategyInput): RequestPlan {
        const { counter, window } = input;
        const events: StrategyEvent[] = [];
        let messages = input.messages;
        let tokens: number;
        let newSession = false;
        const maskIfNeeded = (): void => {
          const soft = p.softThreshold * window;
          if (tokens < soft) return;
          const masked = maskOldest(input, messages, tokens, soft, placeholders);
          ({ messages, tokens } = masked);
          events.push(...masked.events);
        };
        const startSession = (why: string): void => {
          const next = restart(input, messages, why);
          ({ messages } = next);
          events.push(next.event);
          newSession = true;
          tokens = counter.countContext(messages);
          maskIfNeeded();
        };

        if (windDownSent) {
          windDownSent = false;
          const refusal = restartRefusal();
          if (refusal) return { messages, stop: refusal };
          startSession('after the wind-down exchange');
          return { messages, events, newSession };
        }
        const pressure = measurePressure(input, p.measure);
        tokens = pressure.tokens;
        if (pressure.usageMissing && !warnedMissingUsage) {
          warnedMissingUsage = true;
          events.push({ kind: 'warning', detail: 'the backend reported no prompt tokens: using the local count (seed 000 fallback)' });
        }
        maskIfNeeded();
        if (tokens < p.hardThreshold * window) return { messages, events, newSession };

        const windDown = systemMessage({
          id: `${NAME}:wind-down:${input.step}`,
          content: windDownMessage(tokens / window, window - tokens),
          origin: strategyOrigin(NAME, 'wind-down'),
        });
        // Seed 000 Pitfall 6: when even the wind-down exchange cannot fit, restart at once instead
        // of sending a request the provider would refuse (or, on Ollama, silently truncate).
        if (tokens + counter.countMessage(windDown) > window && restartRefusal() === undefined) {
          startSession('no room left for the wind-down exchange');
          return { messages, events, newSession };
        }
        windDownSent = true;
        events.push({ kind: 'wind_down', messageId: windDown.id, detail: `context at ${Math.round((tokens / window) * 100)}% of the window`, text: windDown.content });
        return { messages: [...messages, windDown], events, newSession };
      },
    };
  },
});
