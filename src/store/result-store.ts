/**
 * The results database: one DuckDB file holding batches, runs, and every run's steps and events.
 * Every failure leaves as a CtxbenchError (STORE_ERROR or STORE_LOCKED) naming the file.
 */
import { existsSync, statSync, unlinkSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { LIST, VARCHAR, listValue, type DuckDBConnection, type DuckDBValue } from '@duckdb/node-api';
import { CtxbenchError } from '../core/errors.js';
import { createFolders } from '../core/folders.js';
import { removeStaleTemps } from '../core/temp-files.js';
import { packRun, unpackRun } from '../core/packed-run.js';
import type { BatchInfo, CalibrationRecord, RunResult, RunStatus } from '../core/run-records.js';
import { openError, shortReason } from './errors.js';
import { acquireInstance, releaseInstance } from './instances.js';
import { batchFromRow, batchRow, calibrationFromRow, calibrationRow, eventRows, probeRows, runFromRows, runRow, stepRows } from './records.js';
import { checkLayout } from './layout.js';
import { BATCHES, CALIBRATION, EVENTS, PROBES, RUNS, STEPS, schemaSql, type TableDef } from './schema.js';
import { appendRows, readRows } from './table-io.js';

export interface RunFilter {
  readonly batchId?: string;
  readonly runIds?: readonly string[];
}

interface WaitingRun {
  readonly run: RunResult;
  readonly saved: () => void;
  readonly failed: (error: CtxbenchError) => void;
}

/**
 * Runs finishing within this long of the last write's start wait for the next write, together: a
 * transaction of runs costs about 35 ms whatever its rows (DuckDB's four appenders; the runs table
 * has 60 columns), more than a bundled scenario's run takes to replay. At one write a second the main
 * thread spends ~3% of its time saving, not ~15% (at 0.2 s: 2.5 s of CPU over the 35 s of a 300-run
 * matrix, taken from the worker threads on a 2-core machine).
 */
const GATHER_MS = 1000;

export interface OpenOptions {
  /** How long runs finishing after a write wait to be written together; default GATHER_MS. */
  readonly gatherMs?: number;
  /** How errors name the file: `--db <file>` by default (a merge opens its temp file as its `-o` output). */
  readonly shownAs?: { readonly flag: string; readonly file: string };
}

export class ResultStore {
  /** Operations share one connection, which holds one transaction at a time: they run one by one. */
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;
  /** Runs handed to saveRun that the next write takes, all of them in one transaction. */
  private waiting: WaitingRun[] | undefined;
  /** When the last write of runs began (performance.now()). */
  private lastRunsWrite = -Infinity;
  /** Ends the wait of the next write of runs (flushRuns). */
  private gathering: AbortController | undefined;

  private constructor(
    readonly file: string,
    private readonly path: string,
    private readonly connection: DuckDBConnection,
    private readonly gatherMs: number,
  ) {}

  /**
   * Opens `file` for writing, creating it (and its directories) and the schema when new. Temp files
   * that dead processes left in its folder (a killed merge) go first, as before any write there.
   */
  static async open(file: string, options: OpenOptions = {}): Promise<ResultStore> {
    const path = resolve(file);
    const { flag, file: shown } = options.shownAs ?? { flag: '--db', file };
    await createFolders(dirname(path), `${flag} ${shown}`);
    await removeStaleTemps(dirname(path));
    try {
      // A zero-byte file (from `touch` or mktemp) holds nothing, but DuckDB refuses it as invalid.
      if (existsSync(path) && statSync(path).isFile() && statSync(path).size === 0) unlinkSync(path);
    } catch (error) {
      throw new CtxbenchError('STORE_ERROR', `${flag} ${shown}: cannot open (${shortReason(error)})`);
    }
    return ResultStore.connect(shown, path, true, options.gatherMs ?? GATHER_MS, flag);
  }

  /** Opens an existing results database for reading; never creates one. `flag`: the one errors name (--db, --baseline). */
  static async openExisting(file: string, flag = '--db'): Promise<ResultStore> {
    const path = resolve(file);
    if (!existsSync(path)) throw new CtxbenchError('STORE_ERROR', `${file}: no such results database`);
    if (statSync(path).isFile() && statSync(path).size === 0) {
      throw new CtxbenchError('STORE_ERROR', `${file}: an empty file, not a results database; run \`bench run --db ${file}\` first`);
    }
    return ResultStore.connect(file, path, false, GATHER_MS, flag);
  }

  private static async connect(file: string, path: string, createSchema: boolean, gatherMs: number, flag = '--db'): Promise<ResultStore> {
    let connection: DuckDBConnection;
    try {
      const instance = await acquireInstance(path, !createSchema);
      connection = await instance.connect().catch(async (error: unknown) => {
        await releaseInstance(path);
        throw error;
      });
    } catch (error) {
      throw error instanceof CtxbenchError ? error : openError(file, error, flag, createSchema);
    }
    const store = new ResultStore(file, path, connection, gatherMs);
    try {
      await store.checkSchema(createSchema);
      return store;
    } catch (error) {
      await store.close();
      throw error instanceof CtxbenchError ? error : openError(file, error, flag, createSchema);
    }
  }

  private async checkSchema(createSchema: boolean): Promise<void> {
    if ((await checkLayout(this.connection, { file: this.file, allowEmpty: createSchema })) === 'ctxbench') return;
    // In one transaction: a half-created schema would later read as some other tool's database.
    await this.transaction(async () => {
      for (const sql of schemaSql()) await this.connection.run(sql);
    });
  }

  async saveBatch(batch: BatchInfo): Promise<void> {
    await this.serially(`cannot save batch ${batch.batchId}`, () =>
      appendRows(this.connection, BATCHES, [batchRow(batch)]),
    );
  }

  /**
   * Writes the run row, its steps and its events in one transaction: all of them or none; resolves
   * once they are in the file. Runs handed in while an earlier operation is under way (a matrix's
   * runs finishing on worker threads) are written together, in one transaction: a transaction and
   * its appenders cost tens of milliseconds whatever their rows, more than a sweep's run takes to
   * replay. When that shared transaction fails, its runs are written one by one, so only the run at
   * fault fails. A write begins at least gatherMs after the one before, so the runs a single thread
   * replays one after the other share transactions too (kill -9 loses at most that much more).
   */
  saveRun(run: RunResult): Promise<void> {
    if (this.closed) return Promise.reject(this.closedError(`cannot save run ${run.runId}`));
    if (this.waiting === undefined) {
      const waiting: WaitingRun[] = [];
      this.waiting = waiting;
      const gathering = new AbortController();
      this.gathering = gathering;
      void this.serially('cannot save runs', async () => {
        const wait = this.lastRunsWrite + this.gatherMs - performance.now();
        if (wait > 0 && !gathering.signal.aborted) await sleep(wait, undefined, { signal: gathering.signal }).catch(() => undefined);
        this.waiting = undefined;
        this.lastRunsWrite = performance.now();
        return this.writeRuns(waiting);
      });
    }
    const waiting = this.waiting;
    return new Promise((saved, failed) => waiting.push({ run, saved, failed }));
  }

  /** No more runs are coming (the matrix ended): the runs waiting are written now, not after gatherMs. */
  flushRuns(): void {
    this.gathering?.abort();
  }

  private async writeRuns(waiting: readonly WaitingRun[]): Promise<void> {
    try {
      await this.transaction(async () => {
        const runs = waiting.map((w) => w.run);
        await appendRows(this.connection, RUNS, runs.map(runRow));
        await appendRows(this.connection, STEPS, eachRow(runs, stepRows));
        await appendRows(this.connection, EVENTS, eachRow(runs, eventRows));
        await appendRows(this.connection, PROBES, runs.flatMap(probeRows));
      });
      waiting.forEach((w) => w.saved());
    } catch (error) {
      if (waiting.length === 1) return waiting[0]!.failed(this.failure(`cannot save run ${waiting[0]!.run.runId}`, error));
      for (const w of waiting) await this.writeRuns([w]);
    }
  }

  /** Stores the token calibration factors a batch used. */
  async saveCalibration(records: readonly CalibrationRecord[]): Promise<void> {
    if (records.length === 0) return;
    await this.serially('cannot save calibration', () => appendRows(this.connection, CALIBRATION, records.map(calibrationRow)));
  }

  /** The token calibration of these batches, one row per model and encoding, in batch order. */
  async loadCalibration(batchIds: readonly string[]): Promise<CalibrationRecord[]> {
    return this.serially('cannot read calibration', async () =>
      readRows<typeof CALIBRATION>(
        await this.connection.runAndReadAll(`SELECT * FROM ${CALIBRATION.name} WHERE list_contains($ids, batch_id) ORDER BY batch_id, rowid`, { ids: listValue([...batchIds]) }, { ids: LIST(VARCHAR) }),
      ).map(calibrationFromRow),
    );
  }

  /** Runs in start order, each with its steps (by step) and events (by step, in recorded order). */
  async loadRuns(filter: RunFilter = {}): Promise<RunResult[]> {
    return this.serially('cannot read runs', async () => {
      const conditions: string[] = [];
      const values: Record<string, DuckDBValue> = {};
      if (filter.batchId !== undefined) {
        conditions.push('batch_id = $batch');
        values.batch = filter.batchId;
      }
      if (filter.runIds !== undefined) {
        conditions.push('list_contains($ids, run_id)');
        values.ids = listValue([...filter.runIds]);
      }
      const types = filter.runIds === undefined ? undefined : { ids: LIST(VARCHAR) };
      const selected = `SELECT run_id FROM ${RUNS.name}${conditions.length ? ` WHERE ${conditions.join(' AND ')}` : ''}`;
      const query = async (sql: string) => this.connection.runAndReadAll(sql, values, types);

      const runs = readRows<typeof RUNS>(
        await query(`SELECT * FROM ${RUNS.name} WHERE run_id IN (${selected}) ORDER BY (SELECT created_at FROM ${BATCHES.name} b WHERE b.batch_id = ${RUNS.name}.batch_id), batch_id, matrix_index NULLS LAST, started_at, run_id`),
      );
      // A few runs' rows at a time, each run packed as it is made: the rows of every run at once (and
      // their records) held over 1 GB for the 1,500 runs of 100 x 400 x 15.
      const loaded: RunResult[] = [];
      for (let from = 0; from < runs.length; from += LOAD_RUNS) {
        const part = runs.slice(from, from + LOAD_RUNS);
        const read = async (table: TableDef, order: string) =>
          this.connection.runAndReadAll(`SELECT * FROM ${table.name} WHERE list_contains($ids, run_id) ORDER BY run_id, ${order}`, { ids: listValue(part.map((row) => row.run_id)) }, { ids: LIST(VARCHAR) });
        const steps = groupByRun(readRows<typeof STEPS>(await read(STEPS, 'step, seq')));
        const events = groupByRun(readRows<typeof EVENTS>(await read(EVENTS, 'step, seq')));
        const probes = groupByRun(readRows<typeof PROBES>(await read(PROBES, 'step, probe_id')));
        for (const row of part) loaded.push(unpackRun(packRun(runFromRows(row, steps.get(row.run_id) ?? [], events.get(row.run_id) ?? [], probes.get(row.run_id) ?? []))));
      }
      return loaded;
    });
  }

  /** The batches with these ids (every batch when none are given), oldest first. */
  async loadBatches(batchIds?: readonly string[]): Promise<BatchInfo[]> {
    return this.serially('cannot read batches', async () => {
      const where = batchIds === undefined ? '' : ' WHERE list_contains($ids, batch_id)';
      const reader = await this.connection.runAndReadAll(
        `SELECT * FROM ${BATCHES.name}${where} ORDER BY created_at, rowid`,
        batchIds === undefined ? undefined : { ids: listValue([...batchIds]) },
        batchIds === undefined ? undefined : { ids: LIST(VARCHAR) },
      );
      return readRows<typeof BATCHES>(reader).map(batchFromRow);
    });
  }

  /** The most recently created batch that holds runs, if any; with `fingerprint`, the latest that ran that matrix (runs or not: --resume goes on with it). */
  async latestBatchId(fingerprint?: string): Promise<string | undefined> {
    return this.serially('cannot read batches', async () => {
      // A reader's latest is the latest with runs: a run that saved none (it failed before its first)
      // leaves its batch row, which would hide every earlier batch.
      const where = fingerprint === undefined ? `WHERE batch_id IN (SELECT batch_id FROM ${RUNS.name})` : 'WHERE matrix_fingerprint = $fingerprint';
      const rows = (
        await this.connection.runAndReadAll(
          // rowid breaks ties between batches created within the same microsecond.
          `SELECT batch_id FROM ${BATCHES.name} ${where} ORDER BY created_at DESC, rowid DESC LIMIT 1`,
          fingerprint === undefined ? undefined : { fingerprint },
        )
      ).getRowObjectsJS();
      return rows[0]?.batch_id as string | undefined;
    });
  }

  /** The batch a `--batch` flag names: undefined for "all" (every batch); the latest when the flag is absent. */
  async batchNamed(flag: string | undefined): Promise<string | undefined> {
    return flag === 'all' ? undefined : (flag ?? (await this.latestBatchId()));
  }

  /** The batch `batchId` with the fingerprint of the matrix it ran, if the file has it. */
  async findBatch(batchId: string): Promise<{ readonly fingerprint: string | undefined } | undefined> {
    return this.serially('cannot read batches', async () => {
      const rows = readRows<typeof BATCHES>(
        await this.connection.runAndReadAll(`SELECT * FROM ${BATCHES.name} WHERE batch_id = $batchId`, { batchId }),
      );
      return rows[0] === undefined ? undefined : { fingerprint: rows[0].matrix_fingerprint ?? undefined };
    });
  }

  /** How each run of a batch ended, by run id. */
  async runStatuses(batchId: string): Promise<Map<string, RunStatus>> {
    return this.serially('cannot read runs', async () => {
      const rows = (
        await this.connection.runAndReadAll(`SELECT run_id, status FROM ${RUNS.name} WHERE batch_id = $batchId`, { batchId })
      ).getRowObjectsJS() as { run_id: string; status: RunStatus }[];
      return new Map(rows.map((row) => [row.run_id, row.status]));
    });
  }

  /** Deletes runs with their steps, events and probes, in one transaction: all of them or none. */
  async deleteRuns(runIds: readonly string[]): Promise<void> {
    if (runIds.length === 0) return;
    await this.serially('cannot delete runs', () =>
      this.transaction(async () => {
        for (const table of [RUNS, STEPS, EVENTS, PROBES]) {
          await this.connection.run(`DELETE FROM ${table.name} WHERE list_contains($ids, run_id)`, { ids: listValue([...runIds]) }, { ids: LIST(VARCHAR) });
        }
      }),
    );
  }

  /**
   * Runs `operation` on the store's connection, in turn with the store's other operations: for the
   * store modules that work in SQL (merge, export). Its failures leave as STORE_ERROR naming `what`.
   */
  async use<T>(what: string, operation: (connection: DuckDBConnection) => Promise<T>): Promise<T> {
    return this.serially(what, () => operation(this.connection));
  }

  /** Lets operations already requested finish, then releases the file. Safe to call twice. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.queue;
    this.connection.closeSync();
    await releaseInstance(this.path);
  }

  private closedError(what: string): CtxbenchError {
    return new CtxbenchError('STORE_ERROR', `${this.file}: ${what} (the store is closed)`);
  }

  private failure(what: string, error: unknown): CtxbenchError {
    return error instanceof CtxbenchError ? error : new CtxbenchError('STORE_ERROR', `${this.file}: ${what} (${shortReason(error)})`);
  }

  private serially<T>(what: string, operation: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(this.closedError(what));
    const result = this.queue.then(async () => {
      try {
        return await operation();
      } catch (error) {
        throw this.failure(what, error);
      }
    });
    this.queue = result.catch(() => undefined);
    return result;
  }

  private async transaction(body: () => Promise<void>): Promise<void> {
    await this.connection.run('BEGIN TRANSACTION');
    try {
      await body();
      await this.connection.run('COMMIT');
    } catch (error) {
      // A failed statement may already have aborted the transaction; either way none of it stays.
      await this.connection.run('ROLLBACK').catch(() => undefined);
      throw error;
    }
  }
}

/** Runs whose rows loadRuns reads at a time. */
export const LOAD_RUNS = 64;

function groupByRun<R extends { run_id: string }>(rows: readonly R[]): Map<string, R[]> {
  const groups = new Map<string, R[]>();
  for (const row of rows) {
    const group = groups.get(row.run_id);
    if (group === undefined) groups.set(row.run_id, [row]);
    else group.push(row);
  }
  return groups;
}

/** The rows of each run in turn, made as they are appended. */
function* eachRow<R>(runs: readonly RunResult[], rowsOf: (run: RunResult) => Iterable<R>): Generator<R> {
  for (const run of runs) yield* rowsOf(run);
}
