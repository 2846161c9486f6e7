/**
 * The mock agent of a reactive replay (recovery.ts): decides, request by request, whether the next
 * request answers the recorded turn or re-reads something that turn needs, within the caps, and
 * tallies what that cost and what was held or lost.
 */
import type { Message } from '../core/messages.js';
import type { IndexedStore } from '../metrics/answer-index.js';
import type { Mentions } from '../metrics/context-text.js';
import type { RecoveryCounts, RereadCaps } from '../core/run-records.js';
import { answerSource, referenceSources, type ReferenceSource } from '../metrics/reference-sources.js';
import type { Scenario } from '../scenarios/scenario.js';
import type { Turn } from '../scenarios/turns.js';

/** What one request adds to the conversation: the agent's turn and what followed it. */
export type Exchange = Pick<Turn, 'assistant' | 'after'>;
import { checkNeeds, describeRecovery, recoveryTurn, type Recovery } from './recovery.js';
import type { RunLog } from './run-log.js';

/** Sources depend on the scenario only: computed once, shared by every strategy's run. */
const sourceCache = new WeakMap<Scenario, ReadonlyMap<string, ReferenceSource>>();
function sourcesOf(scenario: Scenario): ReadonlyMap<string, ReferenceSource> {
  let sources = sourceCache.get(scenario);
  if (!sources) sourceCache.set(scenario, (sources = referenceSources(scenario.messages)));
  return sources;
}

export interface ReactiveAgentInput {
  readonly scenario: Scenario;
  readonly caps: RereadCaps;
  readonly log: RunLog;
  /** The run's store, indexed for the turns' needs. */
  readonly files: IndexedStore;
  readonly scenarioIds: ReadonlySet<string>;
  /** Whether a message holds a string (context-text.ts: the replay's index of the scenario's strings). */
  readonly mentionedIn: Mentions;
  /** The reference targets of each recorded turn (reference-recall.ts). */
  readonly targets: ReadonlyMap<number, readonly string[]>;
  /** The answers of the probes judged at each recorded turn. */
  readonly probeAnswers: ReadonlyMap<number, readonly string[]>;
}

export interface ReactiveAgent {
  /** The re-read to make before recorded turn `turnIndex` on `context`, or undefined: answer the turn now. */
  next(context: readonly Message[], turnIndex: number): Recovery | undefined;
  /** The exchange `recovery` adds (recorded as a `reread` event). */
  turnOf(recovery: Recovery): Exchange;
  /** What the run's re-reads came to (their tokens are summed from the steps). */
  counts(): Omit<RecoveryCounts, 'rereadInputTokens'>;
}

export function createReactiveAgent(input: ReactiveAgentInput): ReactiveAgent {
  const { scenario, caps, log } = input;
  const sources = sourcesOf(scenario);
  const answerSources = new Map<string, ReferenceSource | undefined>();
  const sourceOf = (need: string): ReferenceSource | undefined => {
    if (sources.has(need)) return sources.get(need);
    if (!answerSources.has(need)) answerSources.set(need, answerSource(need, scenario.messages));
    return answerSources.get(need);
  };
  let turn = -1;
  let tried = new Set<string>();
  let turnRereads = 0;
  const totals = { rereads: 0, summaryReferences: 0, lostReferences: 0, capHits: 0 };

  return {
    next(context, turnIndex) {
      if (turnIndex !== turn) [turn, tried, turnRereads] = [turnIndex, new Set(), 0];
      const targets = input.targets.get(turnIndex) ?? [];
      const needs = [...new Set([...targets, ...(input.probeAnswers.get(turnIndex) ?? [])])];
      if (needs.length === 0) return undefined;
      const check = checkNeeds(needs, { context, files: input.files, scenarioIds: input.scenarioIds, mentionedIn: input.mentionedIn, sourceOf, tried });
      const recovery = check.recoveries[0];
      const capped = turnRereads >= caps.perTurn ? 'turn' : totals.rereads >= caps.perRun ? 'run' : undefined;
      if (recovery && !capped) return recovery;
      if (recovery) {
        totals.capHits += 1;
        log.record([{ kind: 'reread_cap', detail: `${check.recoveries.length} re-read(s) not made: the cap of ${capped === 'turn' ? `${caps.perTurn} per turn` : `${caps.perRun} per run`} was reached` }]);
      }
      // The turn goes ahead on this context: tally its references (probe answers are judged as probes).
      const isTarget = new Set(targets);
      totals.summaryReferences += check.summaryHeld.filter((s) => isTarget.has(s)).length;
      const unrecovered = check.recoveries.flatMap((r) => r.needs);
      totals.lostReferences += [...check.lost, ...unrecovered].filter((s) => isTarget.has(s)).length;
      return undefined;
    },
    turnOf(recovery) {
      turnRereads += 1;
      totals.rereads += 1;
      tried.add(recovery.key);
      const { assistant, result } = recoveryTurn(recovery, `reread-${totals.rereads}`);
      log.record([{ kind: 'reread', detail: describeRecovery(recovery), messageId: assistant.id }]);
      return { assistant, after: [result] };
    },
    counts: () => ({ ...totals }),
  };
}
