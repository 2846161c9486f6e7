import { describe, expect, it } from 'vitest';
import { browserPlan, findChromium, isCi } from './browser.js';

describe('the browser tests: run, skip or fail', () => {
  it('run with the Chromium found, in CI or not', () => {
    expect(browserPlan('/usr/bin/chromium', {})).toEqual({ kind: 'run', executablePath: '/usr/bin/chromium' });
    expect(browserPlan('/usr/bin/chromium', { CI: 'true' })).toEqual({ kind: 'run', executablePath: '/usr/bin/chromium' });
  });

  it('are skipped without Chromium, with the reason and the fix', () => {
    expect(browserPlan(undefined, {})).toEqual({
      kind: 'skip',
      reason: 'browser tests skipped: no Chromium (looked for /usr/bin/chromium, /usr/bin/chromium-browser; or set CHROMIUM_PATH); install it with `apt-get install chromium fonts-liberation`',
    });
  });

  it('fail without Chromium under CI=true, which installs it (.ci/run)', () => {
    const plan = browserPlan(undefined, { CI: 'true' });
    expect(plan.kind).toBe('fail');
    expect(plan).toMatchObject({ reason: expect.stringMatching(/^browser tests cannot run under CI=true: no Chromium \(looked for .*\); install it with `apt-get install chromium fonts-liberation`$/) });
  });

  it('CI is any value but empty, 0 and false', () => {
    expect([undefined, '', '0', 'false', 'FALSE'].map((CI) => isCi({ CI }))).toEqual([false, false, false, false, false]);
    expect(['true', '1', 'yes'].map((CI) => isCi({ CI }))).toEqual([true, true, true]);
  });

  it('looks for Chromium where Debian puts it, or only at CHROMIUM_PATH when set', () => {
    const at = (...present: string[]) => (file: string) => present.includes(file);
    expect(findChromium({}, at('/usr/bin/chromium-browser'))).toBe('/usr/bin/chromium-browser');
    expect(findChromium({}, at())).toBeUndefined();
    expect(findChromium({ CHROMIUM_PATH: '/opt/chrome' }, at('/usr/bin/chromium', '/opt/chrome'))).toBe('/opt/chrome');
    expect(findChromium({ CHROMIUM_PATH: '/opt/chrome' }, at('/usr/bin/chromium'))).toBeUndefined();
  });
});
