// tsc compiles only .ts; the report's template, CSS and page script must sit next to the compiled
// module, which loads them relative to its own URL.
import { chmodSync, cpSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const from = fileURLToPath(new URL('../src/report/templates/', import.meta.url));
const to = fileURLToPath(new URL('../dist/report/templates/', import.meta.url));

cpSync(from, to, { recursive: true });
console.log(`copied ${from} -> ${to}`);

// tsc writes files without the execute bit: the `bench` bin must have it for `npx bench` to run.
chmodSync(fileURLToPath(new URL('../dist/cli/bin.js', import.meta.url)), 0o755);
