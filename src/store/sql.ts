/**
 * SQL text for the statements DuckDB cannot take parameters in (ATTACH, COPY ... TO: file names).
 */

/** A single-quoted SQL string literal. */
export const sqlString = (text: string): string => `'${text.replaceAll("'", "''")}'`;

/** A double-quoted SQL identifier (a catalog alias, a table name). */
export const sqlIdentifier = (name: string): string => `"${name.replaceAll('"', '""')}"`;
