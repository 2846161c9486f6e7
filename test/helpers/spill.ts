/** Spill files that fail as a temporary folder can: refused at open, or full after some writes. */
import { openSpillFile, type SpillFile } from '../../src/runner/spill-file.js';

const errno = (code: string, message: string): Error => Object.assign(new Error(`${code}: ${message}`), { code });

/** An open that the file system refuses (a read-only temporary folder). */
export const refusedOpen = (): SpillFile => {
  throw errno('EROFS', 'read-only file system');
};

/** A real spill file whose writes after the first `room` fail with ENOSPC; `writes()` counts the tries. */
export function fullAfter(room: number): { readonly file: SpillFile; writes(): number } {
  const real = openSpillFile('ctxbench-spill-test-');
  let writes = 0;
  const file: SpillFile = {
    ...real,
    write: (bytes) => {
      if (++writes > room) throw errno('ENOSPC', 'no space left on device');
      return real.write(bytes);
    },
  };
  return { file, writes: () => writes };
}
