/**
 * Whether the browser tests (playwright-core driving a real Chromium) run here. With Chromium they
 * run; without it they are skipped with one line saying why and how to install it, except under CI,
 * where .ci/run installs it: there a missing browser fails rather than passing unnoticed.
 */
import { existsSync } from 'node:fs';

/** Where Debian (and Ubuntu's older packages) put Chromium; CHROMIUM_PATH replaces the list. */
const CHROMIUM_PATHS = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];
const INSTALL = '`apt-get install chromium fonts-liberation`';

type Env = Readonly<Record<string, string | undefined>>;

export type BrowserPlan = { readonly kind: 'run'; readonly executablePath: string } | { readonly kind: 'skip' | 'fail'; readonly reason: string };

/** CI=true (or any value but empty, 0 and false), as CI services set it. */
export const isCi = (env: Env): boolean => !['', '0', 'false'].includes((env['CI'] ?? '').toLowerCase());

const candidates = (env: Env): string[] => (env['CHROMIUM_PATH'] ? [env['CHROMIUM_PATH']] : CHROMIUM_PATHS);

/** The Chromium to launch: CHROMIUM_PATH when set, else the first of Debian's paths that exists. */
export function findChromium(env: Env = process.env, exists: (file: string) => boolean = existsSync): string | undefined {
  return candidates(env).find(exists);
}

/** Run with the Chromium found; without one, skip, or fail under CI. */
export function browserPlan(executablePath: string | undefined, env: Env = process.env): BrowserPlan {
  if (executablePath !== undefined) return { kind: 'run', executablePath };
  const looked = `looked for ${candidates(env).join(', ')}${env['CHROMIUM_PATH'] ? '' : '; or set CHROMIUM_PATH'}`;
  return isCi(env)
    ? { kind: 'fail', reason: `browser tests cannot run under CI=true: no Chromium (${looked}); install it with ${INSTALL}` }
    : { kind: 'skip', reason: `browser tests skipped: no Chromium (${looked}); install it with ${INSTALL}` };
}
