/**
 * A temporary file that holds byte blocks for this process alone, read back by position: what the
 * main thread of a worker matrix keeps of its scenarios until their runs are in (scenario-release.ts),
 * in the page cache, not in its own memory. The file is unlinked as soon as it is open (where the
 * system allows; else at close), so nothing is left behind, whatever ends the process.
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
