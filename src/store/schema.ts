/**
 * The results database layout. Each table is declared once, as column name -> type, and both the DDL
 * and the TypeScript row types are derived from that declaration, so the writer, the reader and the
 * file cannot drift apart. A trailing `?` marks a nullable column: absent optional values are stored
 * as NULL, never as 0 or "".
 */

/**
 * Bump when the layout changes incompatibly; older ctxbench versions then refuse the file. 3: a run
 * records its scenario's content digest, and its cached input may be NULL (unknown: a live provider
 * that reports no prompt-cache hits). 4: token calibration with an overhead per request (a run's
 * calibration_overhead; the calibration table's overhead, source, scenarios and out-of-sample errors).
 * 5: reactive replay (a run's replay settings, re-reads and how its references were held). 6: an
 * outside strategy's file and source digest (`--strategy ./x.ts`).
 */
export const SCHEMA_VERSION = 6;

export type ColumnType = 'INTEGER' | 'BIGINT' | 'DOUBLE' | 'VARCHAR' | 'TIMESTAMP';
type ColumnSpec = ColumnType | `${ColumnType}?`;
type Columns = Readonly<Record<string, ColumnSpec>>;

export interface TableDef<C extends Columns = Columns> {
  readonly name: string;
  /** Declaration order is the column order in the file (the Appender writes by position). */
  readonly columns: C;
  readonly primaryKey?: string;
}

type JsOf<T> = T extends 'VARCHAR' ? string : T extends 'TIMESTAMP' ? Date : number;

/** One row of a table as plain JS values: numbers (BIGINT included), strings, Dates and nulls. */
export type Row<T extends TableDef> = {
  -readonly [K in keyof T['columns']]: T['columns'][K] extends `${infer B}?` ? JsOf<B> | null : JsOf<T['columns'][K]>;
};

const table = <const C extends Columns>(name: string, columns: C, primaryKey?: string): TableDef<C> =>
  primaryKey === undefined ? { name, columns } : { name, columns, primaryKey };

export const META = table('ctxbench_meta', { key: 'VARCHAR', value: 'VARCHAR' }, 'key');

export const BATCHES = table(
  'batches',
  {
    batch_id: 'VARCHAR',
    created_at: 'TIMESTAMP',
    command: 'VARCHAR',
    version: 'VARCHAR',
    // What the batch ran (runner/fingerprint.ts): `--resume` continues the batch of the same matrix.
    matrix_fingerprint: 'VARCHAR?',
    // The ctxbench commit that ran it, when run from a git checkout.
    git_sha: 'VARCHAR?',
  },
  'batch_id',
);

export const RUNS = table(
  'runs',
  {
    run_id: 'VARCHAR',
    batch_id: 'VARCHAR',
    // Position in the matrix (scenario-major): runs are listed in this order, whatever order they finished in.
    matrix_index: 'INTEGER?',
    scenario_id: 'VARCHAR',
    scenario_title: 'VARCHAR',
    scenario_file: 'VARCHAR',
    source_format: 'VARCHAR',
    // Version 3: the scenario's content hash (scenarios/digest.ts), for the gate to tell a changed task.
    scenario_digest: 'VARCHAR?',
    outcome: 'VARCHAR?',
    strategy: 'VARCHAR',
    base_strategy: 'VARCHAR',
    // Version 6: an outside strategy's file (relative, `/`-separated) and source digest; NULL for a built-in.
    strategy_file: 'VARCHAR?',
    strategy_digest: 'VARCHAR?',
    params_json: 'VARCHAR',
    // A sweep's setting ("softThreshold=0.6,carryoverTurns=3"); NULL outside sweeps.
    variant: 'VARCHAR?',
    backend: 'VARCHAR',
    backend_options_json: 'VARCHAR',
    model: 'VARCHAR',
    context_window: 'INTEGER',
    encoding: 'VARCHAR',
    calibration_factor: 'DOUBLE?',
    // Version 4: tokens the calibration adds to every request (NULL: uncalibrated).
    calibration_overhead: 'DOUBLE?',
    price_model: 'VARCHAR',
    thresholds_json: 'VARCHAR',
    // Version 5: reactive replay's settings as JSON ({"mode":"reactive","caps":{...}}); NULL: forced.
    replay_json: 'VARCHAR?',
    status: 'VARCHAR',
    failed_step: 'INTEGER?',
    failure: 'VARCHAR?',
    steps: 'INTEGER',
    total_steps: 'INTEGER',
    sessions: 'INTEGER',
    restarts: 'INTEGER',
    // Sums over a whole run can pass 2^31 on long scenarios.
    input_tokens: 'BIGINT',
    output_tokens: 'BIGINT',
    llm_calls: 'INTEGER',
    overhead_tokens: 'BIGINT',
    peak_context_tokens: 'INTEGER',
    peak_context_pct: 'DOUBLE',
    mean_context_pct: 'DOUBLE',
    // Version 3: NULL when unknown (a live provider that reports no prompt-cache hits, e.g. Ollama).
    cached_input_tokens: 'BIGINT?',
    cost_usd: 'DOUBLE?',
    probes_total: 'INTEGER',
    probes_verbatim: 'INTEGER',
    probes_summary: 'INTEGER',
    probes_recoverable: 'INTEGER',
    probes_lost: 'INTEGER',
    // Live runs that asked the probe questions: correct answers. NULL when judged on the context only.
    probes_answered: 'INTEGER?',
    ref_present: 'INTEGER?',
    ref_total: 'INTEGER?',
    // Version 5, reactive replay only (NULL when forced): re-reads, their prompt tokens, references held
    // only by a strategy's summary, references lost, times a re-read cap was reached.
    rereads: 'INTEGER?',
    reread_input_tokens: 'BIGINT?',
    ref_summary: 'INTEGER?',
    ref_lost: 'INTEGER?',
    reread_cap_hits: 'INTEGER?',
    usage_mape: 'DOUBLE?',
    usage_mpe: 'DOUBLE?',
    usage_compared_steps: 'INTEGER?',
    started_at: 'TIMESTAMP',
    finished_at: 'TIMESTAMP',
    duration_ms: 'BIGINT',
  },
  'run_id',
);

export const STEPS = table('steps', {
  run_id: 'VARCHAR',
  // Position in the run's step list: keeps the recorded order among requests sharing a step number.
  seq: 'INTEGER',
  step: 'INTEGER',
  session: 'INTEGER',
  purpose: 'VARCHAR',
  prompt_tokens: 'INTEGER',
  completion_tokens: 'INTEGER',
  context_pct: 'DOUBLE',
  message_count: 'INTEGER',
  usage_source: 'VARCHAR',
  recorded_prompt_tokens: 'INTEGER?',
  action: 'VARCHAR',
  // 1 when a live answer came from the record/replay cache; NULL for backends without one.
  cache_hit: 'INTEGER?',
  provider_prompt_tokens: 'INTEGER?',
  finish_reason: 'VARCHAR?',
});

export const EVENTS = table('events', {
  run_id: 'VARCHAR',
  // Position in the run's event list: a step often has several events whose order matters.
  seq: 'INTEGER',
  step: 'INTEGER',
  session: 'INTEGER',
  kind: 'VARCHAR',
  message_id: 'VARCHAR?',
  detail: 'VARCHAR',
  tokens_before: 'INTEGER?',
  tokens_after: 'INTEGER?',
  // Version 2: the messages an event acted on (a JSON array) and the text a strategy wrote.
  message_ids_json: 'VARCHAR?',
  text: 'VARCHAR?',
});

export const PROBES = table('probes', {
  run_id: 'VARCHAR',
  probe_id: 'VARCHAR',
  step: 'INTEGER',
  answer: 'VARCHAR',
  how: 'VARCHAR',
  file: 'VARCHAR?',
  // The model's answer to the probe question and whether it held the fact (1/0); NULL when not asked.
  reply: 'VARCHAR?',
  answered: 'INTEGER?',
});

/** The token calibration of a batch: one row per model (as the registry resolves it) and tokenizer. */
export const CALIBRATION = table('calibration', {
  batch_id: 'VARCHAR',
  model: 'VARCHAR',
  encoding: 'VARCHAR',
  factor: 'DOUBLE',
  // Version 4: tokens per request on top of the scaled count, and where the calibration came from (fitted, built-in, file).
  overhead: 'DOUBLE',
  source: 'VARCHAR',
  // Recorded requests and scenarios the errors are over (fitted on them, or a stored calibration checked on them).
  samples: 'INTEGER',
  scenarios: 'INTEGER',
  // NULL when there were no recorded requests to measure on.
  mape_before: 'DOUBLE?',
  mpe_before: 'DOUBLE?',
  mape_after: 'DOUBLE?',
  mpe_after: 'DOUBLE?',
  // Out of sample (each scenario estimated by a fit on others); NULL with one scenario or a stored calibration.
  mape_oos: 'DOUBLE?',
  mpe_oos: 'DOUBLE?',
});

export const TABLES: readonly TableDef[] = [META, BATCHES, RUNS, STEPS, EVENTS, PROBES, CALIBRATION];

export function columnType(spec: ColumnSpec): { type: ColumnType; nullable: boolean } {
  return spec.endsWith('?')
    ? { type: spec.slice(0, -1) as ColumnType, nullable: true }
    : { type: spec as ColumnType, nullable: false };
}

export function createTableSql(def: TableDef): string {
  const columns = Object.entries(def.columns).map(([name, spec]) => {
    const { type, nullable } = columnType(spec);
    return `${name} ${type}${nullable ? '' : ' NOT NULL'}`;
  });
  if (def.primaryKey !== undefined) columns.push(`PRIMARY KEY (${def.primaryKey})`);
  return `CREATE TABLE ${def.name} (${columns.join(', ')})`;
}

/** Statements that turn an empty database into a ctxbench results database. */
export function schemaSql(): string[] {
  return [
    ...TABLES.map(createTableSql),
    `INSERT INTO ${META.name} VALUES ('schema_version', '${SCHEMA_VERSION}'), ('created_by', 'ctxbench')`,
  ];
}
