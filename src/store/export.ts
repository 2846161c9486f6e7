/**
 * `bench export --parquet DIR`: every table of a results database as one Parquet file, for pandas,
 * Polars, DuckDB, Spark and the like. Tables with a batch_id column are cut to the batch, tables
 * keyed by run_id to that batch's runs; the rest (ctxbench_meta) go whole.
 */
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { CtxbenchError } from '../core/errors.js';
import { shortReason } from './errors.js';
import type { ResultStore } from './result-store.js';
import { RUNS, TABLES, type TableDef } from './schema.js';
import { sqlString } from './sql.js';

export interface ExportedTable {
  readonly table: string;
  readonly file: string;
  readonly rows: number;
}

/** Writes `<dir>/<table>.parquet` for every table; `batchId` undefined exports every batch. */
export async function exportParquet(store: ResultStore, dir: string, batchId: string | undefined): Promise<ExportedTable[]> {
  try {
    await mkdir(dir, { recursive: true });
  } catch (error) {
    throw new CtxbenchError('STORE_ERROR', `--parquet ${dir}: cannot create (${shortReason(error)})`);
  }
  return store.use(`cannot export to ${dir}`, async (connection) => {
    const exported: ExportedTable[] = [];
    for (const table of TABLES) {
      const file = join(dir, `${table.name}.parquet`);
      const reader = await connection.runAndReadAll(`COPY (${selectRows(table, batchId)}) TO ${sqlString(resolve(file))} (FORMAT parquet)`);
      exported.push({ table: table.name, file, rows: Number(reader.getRows()[0]![0]) });
    }
    return exported;
  });
}

function selectRows(table: TableDef, batchId: string | undefined): string {
  const all = `SELECT * FROM ${table.name}`;
  if (batchId === undefined) return all;
  if ('batch_id' in table.columns) return `${all} WHERE batch_id = ${sqlString(batchId)}`;
  if ('run_id' in table.columns) return `${all} WHERE run_id IN (SELECT run_id FROM ${RUNS.name} WHERE batch_id = ${sqlString(batchId)})`;
  return all;
}
