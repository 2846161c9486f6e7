/**
 * `bench export --parquet DIR`: every table of a results database as one Parquet file, for pandas,
 * Polars, DuckDB, Spark and the like. Tables with a batch_id column are cut to the batch, tables
 * keyed by run_id to that batch's runs; the rest (ctxbench_meta) go whole.
 */
import { join } from 'node:path';
import { createFolders } from '../core/folders.js';
import { checkOutput, replaceAtomically, type FileKind, type OutputTarget } from '../core/output-file.js';
import type { ResultStore } from './result-store.js';
import { RUNS, TABLES, type TableDef } from './schema.js';
import { sqlString } from './sql.js';

/** A Parquet file: it opens with the format's magic bytes. */
export const PARQUET_FILE: FileKind = {
  name: 'a Parquet file',
  matches: (head) => head.toString('latin1', 0, 4) === 'PAR1',
};

export interface ExportedTable {
  readonly table: string;
  readonly file: string;
  readonly rows: number;
}

/**
 * Writes `<dir>/<table>.parquet` for every table, each through a temp file; `batchId` undefined
 * exports every batch. A file there is replaced only by its kind, and every one is checked first.
 */
export async function exportParquet(store: ResultStore, dir: string, batchId: string | undefined): Promise<ExportedTable[]> {
  await createFolders(dir, `--parquet ${dir}`);
  const inputs = [{ label: `--db ${store.file}`, file: store.file }];
  const targets = new Map<TableDef, { file: string; label: string; target: OutputTarget }>();
  for (const table of TABLES) {
    const file = join(dir, `${table.name}.parquet`);
    const label = `--parquet ${file}`;
    targets.set(table, { file, label, target: await checkOutput(file, { label, kind: PARQUET_FILE, inputs }) });
  }
  return store.use(`cannot export to ${dir}`, async (connection) => {
    const exported: ExportedTable[] = [];
    for (const [table, { file, label, target }] of targets) {
      let rows = 0;
      await replaceAtomically(target.path, label, async (temp) => {
        const reader = await connection.runAndReadAll(`COPY (${selectRows(table, batchId)}) TO ${sqlString(temp)} (FORMAT parquet)`);
        rows = Number(reader.getRows()[0]![0]);
      });
      exported.push({ table: table.name, file, rows });
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
