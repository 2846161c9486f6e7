/**
 * A full garbage collection of this thread's heap, now. V8 collects an old generation once it has
 * grown to 3 times what its last full collection kept (src/cli/bin.ts), so memory a thread lets go of
 * in bulk comes back only at its next full collection, which a thread that allocates little may not
 * reach before it ends. Node hands out the collector only with `--expose-gc` given at start; set
 * later, the flag exposes it to the contexts created after, so a fresh context hands it over.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let collect: (() => void) | undefined;

export function collectGarbage(): void {
  if (collect === undefined) {
    setFlagsFromString('--expose-gc');
    collect = runInNewContext('gc') as () => void;
  }
  collect();
}
