/**
 * What every tool call is drafted as before it becomes a message pair, and the pieces both planted
 * facts and filler calls build on: a bash call whose output carries the exit code in the world's bash
 * style, and the output of a test run.
 */
import { fill, type Text } from './text.js';
import { NOUNS } from './vocabulary.js';

export interface ToolCallDraft {
  readonly name: string;
  readonly args: Record<string, unknown>;
  readonly output: string;
  /** A clause for the thought that precedes the call ("let me look at x"). */
  readonly intent: string;
}

export function bashCall(text: Text, command: string, output: string, exitCode: number, intent: string): ToolCallDraft {
  const body = output.length > 0 ? `${output}\n` : '';
  const content = text.world.bashStyle === 'openhands' ? `${body}[Command finished with exit code ${exitCode}]` : `<returncode>${exitCode}</returncode>\n<output>\n${body}</output>`;
  return { name: 'bash', args: { command: `cd ${text.world.root} && ${command}` }, output: content, intent };
}

/** pytest or vitest output of about `chars` characters for `test`; `header` goes where the runner prints its setup. */
export function testOutput(text: Text, chars: number, test: string, failing: boolean, header?: string): string {
  const r = text.rng;
  const python = text.world.lang === 'python';
  const [passed, failed] = [r.int(5, 400), failing ? r.int(1, 4) : 0];
  const lines: string[] = [];
  if (python) {
    lines.push('============================= test session starts ==============================', 'platform linux -- Python 3.11.9, pytest-8.2.1, pluggy-1.5.0');
    if (header) lines.push(header);
    lines.push(`rootdir: ${text.world.root}`, `collected ${passed + failed} items`, '');
  } else if (header) lines.push(header, '');
  const body = fill(chars - lines.join('\n').length - 90, () =>
    python
      ? r.chance(0.5)
        ? `${test}::test_${text.fn().replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}_${r.pick(NOUNS)} ${r.pick(['PASSED', 'PASSED', 'PASSED', failing ? 'FAILED' : 'PASSED'])}`
        : `    ${text.codeLine().trim() || 'assert result is not None'}`
      : r.chance(0.6)
        ? ` ${r.pick(['✓', '✓', '✓', failing ? '×' : '✓'])} ${test} > ${text.fn()} > ${text.phrase()} ${r.int(1, 900)}ms`
        : `    ${text.codeLine().trim() || 'expect(result).toBeDefined();'}`,
  );
  lines.push(...body);
  lines.push(
    python
      ? `========================= ${failed > 0 ? `${failed} failed, ` : ''}${passed} passed in ${r.int(0, 59)}.${r.int(10, 99)}s =========================`
      : ` Tests  ${failed > 0 ? `${failed} failed | ` : ''}${passed} passed (${passed + failed})`,
  );
  return lines.join('\n');
}
