/**
 * A temporary file that holds byte blocks for this process alone, read back by position: what the
 * main thread of a worker matrix keeps of its scenarios until their runs are in (scenario-release.ts)
 * and of its finished runs until the report (run-spill.ts), in the page cache, not in its own memory.
 * The file is unlinked as soon as it is open (where the system allows; else at close), so nothing is
 * left behind, whatever ends the process.
 */
import { closeSync, mkdtempSync, openSync, readSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface SpillBlock {
  readonly position: number;
  readonly length: number;
}

export interface SpillFile {
  /** Appends `bytes`; where they are, to read them back. */
  write(bytes: Uint8Array): SpillBlock;
  read(block: SpillBlock): Buffer;
  /** Closes and removes the file; reads after it fail. */
  close(): void;
}

export function openSpillFile(prefix: string): SpillFile {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  const file = path.join(dir, 'spill');
  let fd: number;
  try {
    fd = openSync(file, 'w+', 0o600);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  let removed = false;
  const remove = (): void => {
    if (removed) return;
    unlinkSync(file);
    rmSync(dir, { recursive: true, force: true });
    removed = true;
  };
  try {
    remove();
  } catch {
    // Windows keeps an open file: removed at close.
  }
  let size = 0;
  let open = true;
  return {
    write(bytes) {
      let done = 0;
      while (done < bytes.byteLength) done += writeSync(fd, bytes, done, bytes.byteLength - done, size + done);
      const block = { position: size, length: bytes.byteLength };
      size += bytes.byteLength;
      return block;
    },
    read({ position, length }) {
      const bytes = Buffer.allocUnsafe(length);
      let done = 0;
      while (done < length) {
        const got = readSync(fd, bytes, done, length - done, position + done);
        if (got === 0) throw new Error(`spill file: ${length - done} byte(s) missing at ${position + done}`);
        done += got;
      }
      return bytes;
    },
    close() {
      if (!open) return;
      open = false;
      closeSync(fd);
      remove();
    },
  };
}

/** Blocks put away: in a spill file while the file system takes them, else in memory. */
export interface SpillStore {
  /** Puts `bytes` away; the function gives them back, as often as asked. */
  put(bytes: Uint8Array): () => Uint8Array;
  /** Closes the file (if one was opened); blocks kept in it cannot be read after. */
  close(): void;
}

/**
 * A store over a spill file opened at the first `put`. A temporary folder that cannot take it
 * (read-only, full, missing) costs memory, never the run: from the first refusal (opening or
 * writing) on, blocks stay in memory; those written before still read. Errors that are not the file
 * system's are thrown.
 */
export function spillStore(prefix: string, open: (prefix: string) => SpillFile = openSpillFile): SpillStore {
  let file: SpillFile | undefined;
  let refused = false;
  return {
    put(bytes) {
      if (!refused) {
        try {
          file ??= open(prefix);
          const spilled = file;
          const block = spilled.write(bytes);
          return () => spilled.read(block);
        } catch (error) {
          if (typeof (error as NodeJS.ErrnoException).code !== 'string') throw error;
          refused = true;
        }
      }
      return () => bytes;
    },
    close: () => file?.close(),
  };
}
