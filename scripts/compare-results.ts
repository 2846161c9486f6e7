/**
 * Compares what two results databases hold, for a change that must not change any result (a
 * refactor, a speed-up): runs, steps, events and probes, row by row, matched by run label and
 * scenario (the run id without its batch), ignoring what differs by nature (ids, times, durations).
 *
 *   npx tsx scripts/compare-results.ts before.duckdb after.duckdb
 *
 * Prints the rows each side has that the other lacks, a few per table, and exits 1 when any differ.
 */
import { DuckDBInstance } from '@duckdb/node-api';

/** Columns that name, place or time a run rather than measure it (a scenario's path differs between checkouts). */
const IGNORED = new Set(['run_id', 'batch_id', 'scenario_file', 'started_at', 'finished_at', 'duration_ms']);
const TABLES = ['runs', 'steps', 'events', 'probes'] as const;
/** Rows shown per table and side. */
const SHOWN = 3;

/** The run id without its batch: `label/scenario` (runner/naming.ts). */
const RUN_KEY = `substr(run_id, strpos(run_id, '/') + 1) AS run_key`;

async function columnsOf(connection: Awaited<ReturnType<DuckDBInstance['connect']>>, table: string): Promise<string[]> {
  const reader = await connection.runAndReadAll(`SELECT column_name FROM information_schema.columns WHERE table_catalog = 'a' AND table_name = '${table}' ORDER BY ordinal_position`);
  return reader.getRows().map((row) => String(row[0])).filter((name) => !IGNORED.has(name));
}

async function main(): Promise<number> {
  const [before, after] = process.argv.slice(2);
  if (before === undefined || after === undefined) {
    console.error('usage: npx tsx scripts/compare-results.ts before.duckdb after.duckdb');
    return 1;
  }
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  await connection.run(`ATTACH '${before.replaceAll("'", "''")}' AS a (READ_ONLY)`);
  await connection.run(`ATTACH '${after.replaceAll("'", "''")}' AS b (READ_ONLY)`);
  let differing = 0;
  for (const table of TABLES) {
    const columns = (await columnsOf(connection, table)).join(', ');
    const select = (db: string): string => `SELECT ${RUN_KEY}, ${columns} FROM ${db}.${table}`;
    const count = async (db: string): Promise<number> => Number((await connection.runAndReadAll(`SELECT count(*) FROM ${db}.${table}`)).getRows()[0]![0]);
    const [rowsA, rowsB] = [await count('a'), await count('b')];
    const only = async (x: string, y: string): Promise<unknown[][]> =>
      (await connection.runAndReadAll(`(${select(x)}) EXCEPT ALL (${select(y)}) ORDER BY ALL`)).getRows();
    const [onlyA, onlyB] = [await only('a', 'b'), await only('b', 'a')];
    console.log(`${table}: ${rowsA} vs ${rowsB} rows, ${onlyA.length} only in the first, ${onlyB.length} only in the second`);
    for (const [side, rows] of [['first', onlyA], ['second', onlyB]] as const) {
      for (const row of rows.slice(0, SHOWN)) console.log(`  only in the ${side}: ${JSON.stringify(row, (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v))}`);
    }
    differing += onlyA.length + onlyB.length;
  }
  connection.closeSync();
  console.log(differing === 0 ? 'identical' : `${differing} rows differ`);
  return differing === 0 ? 0 : 1;
}

process.exitCode = await main();
