/**
 * `bench scenarios list`: one entry per scenario (what the table prints a row of, and `--json` prints
 * whole), and the `--json` document: the entries and the files the paths led to that hold no known format.
 */
import { z } from 'zod';
import type { TokenCounter } from '../../core/tokens.js';
import { windowFor } from '../../runner/job-plan.js';
import type { LoadedScenario } from '../../scenarios/load.js';
import { turns } from '../../scenarios/turns.js';
import { VERSION } from '../paths.js';
import { count, documentHeader } from './document.js';

/** Bumped when a field changes meaning or goes away. */
export const SCENARIOS_JSON_FORMAT = 1;

const SCENARIO_ENTRY = z.strictObject({
  id: z.string().describe('the scenario id (runs are keyed strategy|id)'),
  title: z.string().describe('its title (the id when it has none)'),
  file: z.string().describe('the file it was read from; file#N for the N-th run of a file that holds several'),
  format: z.string().describe('the format it was read in: ctxbench, or the importer\'s (mini-swe-agent-1, openhands-litellm, ...)'),
  steps: count().describe('recorded assistant turns: the requests a replay sends'),
  historyTokens: count().describe('the whole recorded history, counted with encoding'),
  recordedPeakTokens: count().nullable().describe('the largest prompt the recorded provider reported; null when it recorded no usage'),
  model: z.string().describe('the model it was recorded with'),
  window: count().describe('the context window a run gets without --window: the scenario\'s, else its model\'s, else the smallest known'),
  outcome: z.string().nullable().describe('the recorded task\'s result (resolved, unresolved); null when unknown'),
  probes: count().describe('facts a later step asks about (planted in synthetic scenarios, written for recorded ones)'),
});

export type ScenarioEntry = z.infer<typeof SCENARIO_ENTRY>;

export const SCENARIOS_DOCUMENT = z
  .strictObject({
    ...documentHeader(['scenarios'], SCENARIOS_JSON_FORMAT),
    encoding: z.string().describe('the tokenizer historyTokens counted with'),
    scenarios: z.array(SCENARIO_ENTRY).describe('every scenario the paths lead to, in the order a run takes them'),
    skipped: z.array(z.string()).describe('files a folder or glob led to that hold no known format (also said in one line on stderr)'),
  })
  .describe('bench scenarios list --json: the scenarios the paths lead to');

export type ScenariosDocument = z.infer<typeof SCENARIOS_DOCUMENT>;

/** One entry per scenario, counted with `counter`. */
export function scenarioEntries(scenarios: readonly LoadedScenario[], counter: TokenCounter): ScenarioEntry[] {
  return scenarios.map(({ scenario, format }) => {
    const recorded = turns(scenario).map((t) => t.assistant.usage?.promptTokens ?? 0);
    const peak = Math.max(0, ...recorded);
    return {
      id: scenario.id,
      title: scenario.title,
      file: scenario.file,
      format,
      steps: recorded.length,
      historyTokens: counter.countContext(scenario.messages),
      recordedPeakTokens: peak > 0 ? peak : null,
      model: scenario.model.name,
      window: windowFor(scenario).window,
      outcome: scenario.outcome ?? null,
      probes: scenario.probes.length,
    };
  });
}

export function scenariosDocument(entries: ScenarioEntry[], skipped: readonly string[], counter: TokenCounter): ScenariosDocument {
  return { kind: 'scenarios', format: SCENARIOS_JSON_FORMAT, ctxbench: VERSION, encoding: counter.encoding, scenarios: entries, skipped: [...skipped] };
}
