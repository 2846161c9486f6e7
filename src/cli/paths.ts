/**
 * Paths the CLI defaults to. The bundled scenarios ship inside the package, so `bench run` works from
 * any directory; results go under ./reports of the current directory.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package root: two levels up from both src/cli and dist/cli. */
export const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export const BUNDLED_SCENARIOS = path.join(PACKAGE_ROOT, 'scenarios');
export const DEFAULT_DB = path.join('reports', 'ctxbench.duckdb');
export const DEFAULT_REPORT = path.join('reports', 'ctxbench-report.html');
/** The settings file `bench run` and `bench sweep` read from the current directory, the first found. */
export const CONFIG_FILES = ['ctxbench.config.yaml', 'ctxbench.config.yml', 'ctxbench.config.json'];
/** The tolerance file `bench check` reads from the baseline's folder, the first found (or the one --tolerances names). */
export const TOLERANCE_FILES = ['ctxbench.tolerances.yaml', 'ctxbench.tolerances.yml', 'ctxbench.tolerances.json'];

export const VERSION: string = (
  JSON.parse(readFileSync(path.join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }
).version;
