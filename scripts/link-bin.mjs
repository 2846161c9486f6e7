// `npx bench` in a checkout: npx runs node_modules/.bin/bench when there is one. npm links the bins of
// dependencies there, never the project's own, so without this link npx installs the checkout into
// its cache on first use and runs its `prepare` (the whole build) again: 13 s instead of 1 s.
import { mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const bin = fileURLToPath(new URL('../node_modules/.bin/', import.meta.url));
mkdirSync(bin, { recursive: true });
rmSync(`${bin}bench`, { force: true });
symlinkSync('../../dist/cli/bin.js', `${bin}bench`);
console.log(`linked ${bin}bench -> dist/cli/bin.js`);
