/**
 * `bench merge`: combines results databases (the shards of a matrix, runs from several machines) into
 * one. Each input is ATTACHed read-only and checked like any results file; a run id found in two
 * inputs is refused, because one of the two would be lost or doubled. The merge is built in a temp
 * file next to the output (`.<name>.merging-<pid>-<random>`) and renamed over it at the end, so a
 * refused or failed merge leaves nothing behind, a killed one leaves a temp file the next write into
 * that folder removes, and an existing output is either kept whole or replaced by a file that contains it.
 */
import { existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { CtxbenchError } from '../core/errors.js';
import { createFolders } from '../core/folders.js';
import { replaceAtomically } from '../core/output-file.js';
import { openError } from './errors.js';
import { checkLayout } from './layout.js';
import { ResultStore } from './result-store.js';
import { BATCHES, CALIBRATION, EVENTS, PROBES, RUNS, STEPS, type TableDef } from './schema.js';
import { sqlString } from './sql.js';

export interface MergeResult {
  /** The files merged, the existing output first when there was one. */
  readonly sources: readonly string[];
  readonly batches: number;
  readonly runs: number;
  /**
   * What the inputs' batches say of how they were run, when they disagree: several shard batches (ids
   * derived from a matrix's fingerprint: shards of one matrix, run with the same flags by the same build
   * of ctxbench, share one), or one batch id (`--batch-id`) whose files ran different matrices or
   * builds (its fingerprint differs). Empty when they agree.
   */
  readonly disagreements: readonly string[];
}

/** Tables holding runs' rows: copied whole, since run ids are unique across the sources. */
const RUN_TABLES: readonly TableDef[] = [RUNS, STEPS, EVENTS, PROBES];

export async function mergeDatabases(inputs: readonly string[], output: string): Promise<MergeResult> {
  const sources = mergeSources(inputs, output);
  const target = resolve(output);
  const existed = sources[0] !== undefined && resolve(sources[0]) === target;
  const label = `-o ${output}`;
  await createFolders(dirname(target), label);
  let counts: Omit<MergeResult, 'sources'> = { batches: 0, runs: 0, disagreements: [] };
  await replaceAtomically(
    target,
    label,
    async (temp) => {
      const store = await ResultStore.open(temp, { shownAs: { flag: '-o', file: output } });
      try {
        counts = await store.use(`cannot merge into ${output}`, (connection) => copySources(connection, sources, existed ? 1 : 0));
      } finally {
        await store.close();
      }
    },
    'merging',
  );
  return { sources, ...counts };
}

/** The inputs, each once, after the output when it already holds something (its runs are kept). */
function mergeSources(inputs: readonly string[], output: string): string[] {
  const seen = new Map<string, string>();
  const kept = existsSync(output) && statSync(output).size > 0;
  for (const file of [...(kept ? [output] : []), ...inputs]) {
    const path = resolve(file);
    if (!existsSync(path)) throw new CtxbenchError('STORE_ERROR', `${file}: no such results database`);
    const earlier = seen.get(path);
    // The output named again as an input means "merge into it"; an input named twice is a slip.
    if (earlier !== undefined && path !== resolve(output)) throw new CtxbenchError('OPTION_INVALID', `${file}: named twice; merge each file once`);
    if (earlier === undefined) seen.set(path, file);
  }
  return [...seen.values()];
}

/** `kept`: how many of `sources` come first as the existing output (0 or 1), whose batches are history, not this merge's inputs. */
async function copySources(connection: DuckDBConnection, sources: readonly string[], kept: number): Promise<Omit<MergeResult, 'sources'>> {
  const aliases = sources.map((_, i) => `source${i}`);
  for (const [i, file] of sources.entries()) {
    try {
      // TYPE duckdb: DuckDB would otherwise go by the name (`x.json`: 'cannot launch in-memory database').
      await connection.run(`ATTACH ${sqlString(resolve(file))} AS ${aliases[i]} (TYPE duckdb, READ_ONLY)`);
    } catch (error) {
      throw openError(file, error, null);
    }
    await checkLayout(connection, { file, catalog: aliases[i] });
  }
  await refuseSharedRuns(connection, sources, aliases);
  const disagreements = await batchDisagreements(connection, aliases.slice(kept), sources.slice(kept));
  for (const alias of aliases) {
    // Shards of one matrix share their batch: its first row stays.
    await connection.run(`${insert(BATCHES, alias)} WHERE batch_id NOT IN (SELECT batch_id FROM ${BATCHES.name})`);
    for (const table of RUN_TABLES) await connection.run(insert(table, alias));
    // Every shard stores the calibration of the whole matrix: one copy of each row.
    await connection.run(`${insert(CALIBRATION, alias)} EXCEPT SELECT ${columnList(CALIBRATION)} FROM ${CALIBRATION.name}`);
  }
  const count = async (table: TableDef): Promise<number> => Number((await connection.runAndReadAll(`SELECT count(*) FROM ${table.name}`)).getRows()[0]![0]);
  await connection.run('CHECKPOINT');
  return { batches: await count(BATCHES), runs: await count(RUNS), disagreements };
}

const columnList = (table: TableDef): string => Object.keys(table.columns).join(', ');

/** What the inputs' batches disagree on (MergeResult.disagreements). */
async function batchDisagreements(connection: DuckDBConnection, aliases: readonly string[], files: readonly string[]): Promise<string[]> {
  const rows: { id: string; fingerprint: string | null; file: string }[] = [];
  for (const [i, alias] of aliases.entries()) {
    const read = await connection.runAndReadAll(`SELECT batch_id, matrix_fingerprint FROM ${alias}.${BATCHES.name}`);
    for (const [id, fingerprint] of read.getRows()) rows.push({ id: String(id), fingerprint: fingerprint === null ? null : String(fingerprint), file: files[i]! });
  }
  const out: string[] = [];
  const shards = [...new Set(rows.filter((r) => r.id.startsWith('matrix-')).map((r) => r.id))];
  if (shards.length > 1) out.push(`the shards are of ${shards.length} matrices (${shards.join(', ')}): shards of one matrix share one batch when they run with the same flags and the same build of ctxbench`);
  for (const id of new Set(rows.map((r) => r.id))) {
    const own = rows.filter((r) => r.id === id && r.fingerprint !== null);
    const other = own.find((r) => r.fingerprint !== own[0]!.fingerprint);
    if (other) out.push(`batch ${id} of ${own[0]!.file} and of ${other.file} ran different matrices or builds of ctxbench (their fingerprints differ): flags, scenarios or code changed between the shards`);
  }
  return out;
}

/** By column name, not position, so a merge never shifts a column. */
const insert = (table: TableDef, alias: string): string =>
  `INSERT INTO ${table.name} (${columnList(table)}) SELECT ${columnList(table)} FROM ${alias}.${table.name}`;

async function refuseSharedRuns(connection: DuckDBConnection, sources: readonly string[], aliases: readonly string[]): Promise<void> {
  const all = aliases.map((alias, i) => `SELECT run_id, ${i} AS source FROM ${alias}.${RUNS.name}`).join(' UNION ALL ');
  const [shared] = (
    await connection.runAndReadAll(
      `SELECT run_id, list(source ORDER BY source) AS sources FROM (${all}) GROUP BY run_id HAVING count(*) > 1 ORDER BY run_id LIMIT 1`,
    )
  ).getRowObjectsJS() as { run_id: string; sources: number[] }[];
  if (shared === undefined) return;
  const [a, b] = shared.sources;
  throw new CtxbenchError(
    'STORE_ERROR',
    `run ${shared.run_id} is in both ${sources[a!]} and ${sources[b!]}: merging would double it; nothing was written`,
  );
}
