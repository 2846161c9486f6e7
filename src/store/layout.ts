/**
 * The check that a DuckDB database is a ctxbench results database this version reads: a meta table
 * with a schema version from OLDEST_READABLE_VERSION to ours, and every table with exactly the
 * declared columns in order (the Appender writes by position). Works on the main database and on
 * ATTACHed ones (merge).
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { CtxbenchError } from '../core/errors.js';
import { META, OLDEST_READABLE_VERSION, SCHEMA_VERSION, TABLES } from './schema.js';
import { sqlIdentifier, sqlString } from './sql.js';

export interface LayoutTarget {
  /** Named in error messages. */
  readonly file: string;
  /** The ATTACH alias; default: the connection's main database. */
  readonly catalog?: string | undefined;
  /** A database without any table passes as 'empty' (a new file to create the schema in). Default false. */
  readonly allowEmpty?: boolean | undefined;
}

/**
 * The file's schema version, or 'empty' (an allowed empty database); throws a one-line error naming
 * the file for anything but a layout this version reads.
 */
export async function checkLayout(connection: DuckDBConnection, { file, catalog, allowEmpty = false }: LayoutTarget): Promise<'empty' | number> {
  const where = `table_catalog = ${catalog === undefined ? 'current_database()' : sqlString(catalog)}`;
  const tables = (
    await connection.runAndReadAll(`SELECT table_schema, table_name FROM information_schema.tables WHERE ${where}`)
  ).getRowObjectsJS();
  if (tables.length === 0 && allowEmpty) return 'empty';
  if (!tables.some((t) => t.table_schema === 'main' && t.table_name === META.name)) {
    throw new CtxbenchError('STORE_ERROR', `${file}: not a ctxbench results database (no ${META.name} table)`);
  }
  const meta = (
    await connection.runAndReadAll(`SELECT value FROM ${catalog === undefined ? '' : `${sqlIdentifier(catalog)}.`}${META.name} WHERE key = 'schema_version'`)
  ).getRowObjectsJS();
  const version = Number(meta[0]?.value);
  if (!Number.isInteger(version) || version < 1) {
    throw new CtxbenchError('STORE_ERROR', `${file}: ${META.name} has no valid schema_version`);
  }
  if (version > SCHEMA_VERSION) {
    throw new CtxbenchError(
      'STORE_ERROR',
      `${file}: written with results schema version ${version}, this ctxbench reads up to version ${SCHEMA_VERSION}; upgrade ctxbench`,
    );
  }
  if (version < OLDEST_READABLE_VERSION) {
    // No migration: such a file lacks what newer runs record (e.g. the text of summaries).
    throw new CtxbenchError(
      'STORE_ERROR',
      `${file}: written by an older ctxbench (results schema version ${version}, this one reads versions ${OLDEST_READABLE_VERSION} to ${SCHEMA_VERSION}); run \`bench run\` again into a new --db, or use the ctxbench version that wrote it`,
    );
  }
  const columns = (
    await connection.runAndReadAll(
      `SELECT table_name, column_name FROM information_schema.columns WHERE ${where} AND table_schema = 'main' ORDER BY table_name, ordinal_position`,
    )
  ).getRowObjectsJS() as { table_name: string; column_name: string }[];
  for (const table of TABLES) {
    const found = columns.filter((c) => c.table_name === table.name).map((c) => c.column_name).join(',');
    if (found !== Object.keys(table.columns).join(',')) {
      throw new CtxbenchError(
        'STORE_ERROR',
        `${file}: its ${table.name} table has other columns than this ctxbench writes (an older or newer results layout); pass a new --db or delete the file`,
      );
    }
  }
  return version;
}
