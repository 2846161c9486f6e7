/**
 * Stands in for the DuckDB shell in the examples test (test/examples.e2e.test.ts), which cannot count
 * on it being installed: `duckdb [FILE] [-c] "SQL"` runs the SQL through @duckdb/node-api, the engine
 * the shell embeds, on FILE (read-only) or in memory, and prints each row as a JSON line. A failing
 * statement prints its error in one line and exits 1, as the shell does.
 */
import { DuckDBInstance } from '@duckdb/node-api';

const args = process.argv.slice(2);
const flagged = args.indexOf('-c');
const positional = flagged < 0 ? args : args.filter((_, i) => i !== flagged && i !== flagged + 1);
const sql = flagged >= 0 ? args[flagged + 1] : positional[1];
const file = positional[0];

if (sql === undefined) {
  process.stderr.write('duckdb stand-in: usage: duckdb [FILE] [-c] "SQL"\n');
  process.exit(1);
}
try {
  const instance = await DuckDBInstance.create(file ?? ':memory:', file === undefined ? {} : { access_mode: 'READ_ONLY' });
  const connection = await instance.connect();
  const rows = (await connection.runAndReadAll(sql)).getRowObjectsJson();
  for (const row of rows) process.stdout.write(`${JSON.stringify(row)}\n`);
  connection.closeSync();
  instance.closeSync();
} catch (error) {
  process.stderr.write(`Error: ${(error as Error).message.split('\n')[0]}\n`);
  process.exit(1);
}
