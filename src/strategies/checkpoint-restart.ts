/**
 * `checkpoint-restart`: context exhaustion as a session boundary, as seed 003 specifies.
 *
 * - Pressure: the latest result's input + output tokens (prompt tokens of the last request plus the
 *   completion tokens of its answer), as a share of the window. At `restartThreshold` (0.90, `>=`):
 * - ask the agent, in its current session, for a `<checkpoint>` block (Goal, Completed Work,
 *   Remaining Tasks, Do Not Redo, Key Decisions) with the seed's prompt;
 * - parse it: strip code fences, take the text inside the tags, or the whole answer without tags;
 * - start a FRESH session: the system prompt, then the seed's continuation prompt around the
 *   checkpoint as the first user message. Nothing else is carried over; a counter numbers the
 *   continuations (no depth limit: the seed leaves it out of scope, "trust the agent").
 * - A checkpoint request that fails or overflows restarts with the seed's minimal prompt.
 * - A result without prompt tokens disables tracking for the rest of the session, with one warning.
 *
 * Timing: the usage is read in afterResponse (the seed reads the SDK's ResultMessage), and acted on
 * in the next beforeRequest, once the turn's tool calls ran and their results are in the session.
 * The seed lets the stream complete before it sends the checkpoint prompt, so no call is abandoned;
 * the checkpoint also covers the latest results, and the checkpoint request ends on answered calls.
 *
 * Differences from the seed, on purpose (README "Strategies"):
 * - the window is the run's (`--window` or the model's), not a 200,000 `context_limit` parameter;
 * - `measure=projected` (not the default) also counts what was appended since the latest result:
 *   the seed's 10% buffer is 20,000 tokens at 200K but 1,600 at 16K, less than one large output;
 * - the seed's risk table names a CONTINUATION_FALLBACK_TEMPLATE for malformed checkpoints that it
 *   never defines: a malformed or untagged answer goes, whole, into the continuation template
 *   (the seed's Task 4);
 * - the seed's code sets a -1 sentinel that nothing reads, so its next result with usage would
 *   resume tracking silently: here tracking stays off for the session, as the seed's text says.
 */
import type { Usage } from '../core/backend.js';
import { withoutPendingCalls } from '../core/cut-points.js';
import { strategyOrigin, userMessage, type UserMessage } from '../core/messages.js';
import { AuxiliaryCallError, defineStrategy, type RequestPlan, type ResponseInput, type StrategyEvent, type StrategyInput } from '../core/strategy.js';
import { measurePressure } from './parts/pressure.js';

const NAME = 'checkpoint-restart';

/** The checkpoint template's sections, in the order the prompt lists them. */
export const CHECKPOINT_SECTIONS = ['Goal', 'Completed Work', 'Remaining Tasks', 'Do Not Redo', 'Key Decisions'] as const;

/** Seed 003 `src/prompts/checkpoint_request.md`, word for word. */
export const CHECKPOINT_REQUEST_PROMPT = `CONTEXT LIMIT APPROACHING - CHECKPOINT REQUIRED

Output a checkpoint summary now:

<checkpoint>
## Goal
[1-2 sentence summary of the original task]

## Completed Work
[List each file modified and what changed]

## Remaining Tasks
[Ordered list of what still needs to be done]

## Do Not Redo
[Completed items that should not be repeated]

## Key Decisions
[Architectural choices or constraints for continuation]
</checkpoint>

After outputting this checkpoint, STOP.`;

/** Seed 003 `src/prompts/continuation.md`, word for word, around the parsed checkpoint. */
export function continuationPrompt(checkpoint: string): string {
  return `CONTINUING FROM PREVIOUS SESSION

The previous session hit the context limit. Here is the state:

${checkpoint}

Continue from the remaining tasks. Do not repeat completed work.`;
}

/** Seed 003's minimal prompt when the checkpoint request fails ("restart with minimal ... prompt"). */
export const MINIMAL_CONTINUATION_PROMPT = 'continue previous work';

/** The answer inside one wrapping markdown code fence (```xml, ```markdown, ```), or as it is. */
function unfence(text: string): string {
  const fenced = /^\s*```[\w-]*[ \t]*\n([\s\S]*?)\n?```\s*$/.exec(text);
  return fenced ? fenced[1]! : text;
}

/**
 * Seed 003 `extract_checkpoint`: strips code-fence wrappers, takes the text between `<checkpoint>`
 * and `</checkpoint>` (to the end when the closing tag is missing: "parse what's possible"), and
 * falls back to the whole answer when there is no tag.
 */
export function extractCheckpoint(text: string): string {
  const answer = unfence(text);
  const tagged = /<checkpoint>([\s\S]*?)(?:<\/checkpoint>|$)/i.exec(answer);
  return unfence((tagged ? tagged[1]! : answer).trim()).trim();
}

/** Seed 003 `ContextUsage.pressure_ratio`: (input + output tokens of the latest result) / window. */
export function pressureRatio(usage: Usage, window: number): number {
  return ((usage.promptTokens ?? 0) + (usage.completionTokens ?? 0)) / window;
}

interface Checkpoint {
  /** The new session's first user message. */
  readonly prompt: UserMessage;
  readonly events: StrategyEvent[];
}

export const checkpointRestartStrategy = defineStrategy({
  name: NAME,
  seed: '003',
  summary: 'Seed 003: at 90% ask the agent for a <checkpoint>, then start a fresh session from the continuation prompt.',
  params: {
    restartThreshold: {
      kind: 'fraction',
      default: 0.9,
      description: 'Checkpoint and restart when the context reaches this share of the window (seed: 0.90).',
    },
    measure: {
      kind: 'choice',
      default: 'result',
      values: ['result', 'projected'],
      description: "Context size: the latest result's input + output tokens (seed), or the next request's (last prompt tokens plus what was appended since).",
    },
  },
  thresholds: (p) => [{ label: 'checkpoint + restart', fraction: p.restartThreshold }],
  create(p) {
    let continuations = 0;
    let latest: Usage | undefined; // usage of the session's latest result, while tracking is on
    // Seed: sentinel -1, for the session. Only tracking restarts a session, so it lasts the run.
    let trackingDisabled = false;
    let warnMissingUsage = false;

    /** The window share that decides the restart, by `measure`. */
    const currentRatio = (input: StrategyInput, usage: Usage): number =>
      p.measure === 'result' ? pressureRatio(usage, input.window) : measurePressure(input, 'projected').tokens / input.window;

    /** Asks the current session for its checkpoint; the minimal prompt when that fails. */
    const checkpoint = async (input: StrategyInput, session: number): Promise<Checkpoint> => {
      const request = userMessage({
        id: `${NAME}:checkpoint-request:${input.step}`,
        content: CHECKPOINT_REQUEST_PROMPT,
        origin: strategyOrigin(NAME, 'checkpoint-request'),
      });
      const prompt = (content: string, action: string): UserMessage =>
        userMessage({ id: `${NAME}:continuation:${session}`, content, origin: strategyOrigin(NAME, action) });
      try {
        const answer = await input.llm({
          // A trailing assistant whose calls have no results yet cannot precede the checkpoint prompt
          // (pairing applies to auxiliary requests too).
          messages: [...withoutPendingCalls(input.messages), request],
          purpose: 'checkpoint',
          expect: { sections: CHECKPOINT_SECTIONS, wrap: 'checkpoint' },
        });
        const parsed = extractCheckpoint(answer.text);
        const tokens = input.counter.countText(parsed);
        return {
          prompt: prompt(continuationPrompt(parsed), 'continuation'),
          events: [{ kind: 'checkpoint', messageId: request.id, detail: `continuation #${continuations}: checkpoint of ${tokens} tokens`, tokensAfter: tokens, text: parsed }],
        };
      } catch (error) {
        if (!(error instanceof AuxiliaryCallError)) throw error;
        // The runner recorded `aux_failed`; say which way the strategy went.
        return {
          prompt: prompt(MINIMAL_CONTINUATION_PROMPT, 'minimal-continuation'),
          events: [{ kind: 'warning', detail: `checkpoint request failed (${error.reason}): continuation #${continuations} starts from the minimal prompt "${MINIMAL_CONTINUATION_PROMPT}"` }],
        };
      }
    };

    return {
      async beforeRequest(input: StrategyInput): Promise<RequestPlan> {
        const events: StrategyEvent[] = [];
        if (warnMissingUsage) {
          warnMissingUsage = false;
          events.push({ kind: 'warning', detail: `session ${input.session}: the backend reported no prompt tokens, context tracking disabled for this session (seed 003)` });
        }
        const ratio = latest && currentRatio(input, latest);
        if (ratio === undefined || ratio < p.restartThreshold) return { messages: input.messages, events };

        latest = undefined; // the fresh session has no result yet
        continuations += 1;
        const session = input.session + 1;
        const { prompt, events: checkpointEvents } = await checkpoint(input, session);
        const messages = input.systemPrompt ? [input.systemPrompt, prompt] : [prompt];
        events.push(...checkpointEvents, {
          kind: 'restart',
          messageId: prompt.id,
          detail: `continuation #${continuations}: session ${session} at ${Math.round(ratio * 100)}% of the window`,
          tokensBefore: input.counter.countContext(input.messages),
          tokensAfter: input.counter.countContext(messages),
        });
        return { messages, events, newSession: true };
      },

      afterResponse(input: ResponseInput): undefined {
        if (trackingDisabled) return undefined;
        if (input.usage.promptTokens === undefined) {
          trackingDisabled = true;
          warnMissingUsage = true;
          latest = undefined;
        } else {
          latest = input.usage;
        }
        return undefined;
      },
    };
  },
});
