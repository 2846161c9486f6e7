// tsc never deletes: a module moved or removed in src would linger in dist, where the CLI and the
// end-to-end tests could still load it. The build starts from an empty dist.
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

rmSync(fileURLToPath(new URL('../dist/', import.meta.url)), { recursive: true, force: true });
