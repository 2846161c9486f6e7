/**
 * The jobs of a matrix, one per (scenario, strategy entry), each keyed the way its run is named
 * (strategy label and scenario id), so a job means the same thing on every machine and in every
 * results file. Sharding and resuming pick jobs by these keys.
 */
import { scenarioInvalid } from '../core/errors.js';
import type { LoadedScenario } from '../scenarios/load.js';
import { matrixSteps } from './matrix.js';
import type { MatrixEntry } from './matrix-entry.js';
import { runLabel } from '../core/run-names.js';

export interface MatrixJob {
  readonly key: string;
  /** The name runs are stored under: the preset's, else the strategy's. */
  readonly label: string;
  readonly loaded: LoadedScenario;
  readonly entry: MatrixEntry;
  /** Agent steps to replay at most: the work the job is. */
  readonly weight: number;
}

/** How the entry's runs are named: the preset's or strategy's name, with a sweep's setting in brackets. */
export const entryLabel = (entry: MatrixEntry): string => runLabel(entry.preset ?? entry.strategy.name, entry.variant);

export const jobKey = (label: string, scenarioId: string): string => `${label}/${scenarioId}`;

/** Every (scenario, entry) pair, scenario by scenario. Two scenarios with one id would share run ids: refused. */
export function matrixJobs(scenarios: readonly LoadedScenario[], entries: readonly MatrixEntry[]): MatrixJob[] {
  const files = new Map<string, string>();
  for (const { scenario } of scenarios) {
    const other = files.get(scenario.id);
    if (other !== undefined) throw scenarioInvalid(scenario.file, `scenario id ${scenario.id} is also the id of a scenario in ${other}; ids name the runs, so they must be unique`);
    files.set(scenario.id, scenario.file);
  }
  return scenarios.flatMap((loaded) =>
    entries.map((entry) => {
      const label = entryLabel(entry);
      return { key: jobKey(label, loaded.scenario.id), label, loaded, entry, weight: matrixSteps([loaded], [entry]) };
    }),
  );
}
