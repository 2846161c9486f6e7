import { describe, expect, it } from 'vitest';
import { andList, helpExamples, inlineCode, markdownExamples, missingOutput, shellCommands, words } from './examples.js';

const md = (...lines: string[]): string => lines.join('\n');

describe('markdownExamples', () => {
  it('a shell block: one command a line, `\\` continues one, comments and blank lines skipped', () => {
    const text = md('Intro.', '', '```sh', 'npx bench run --window 32k   # replay', '', '# a note', 'npx bench report \\', '  --db r.duckdb', '```');
    expect(markdownExamples(text, 'R.md')).toEqual([
      {
        kind: 'shell',
        where: 'R.md:3',
        commands: [
          { text: 'npx bench run --window 32k', exit: 0 },
          { text: 'npx bench report --db r.duckdb', exit: 0 },
        ],
      },
    ]);
  });

  it('blocks by language: yaml and json are data, text and unlabeled are text, anything else unknown', () => {
    const text = md('```yaml', 'window: 32k', '```', '```json', '{}', '```', '```text', 'a', '```', '```', 'b', '```', '```python', 'x', '```');
    expect(markdownExamples(text, 'R.md').map((e) => [e.kind, e.where])).toEqual([
      ['data', 'R.md:1'],
      ['data', 'R.md:4'],
      ['text', 'R.md:7'],
      ['text', 'R.md:10'],
      ['unknown', 'R.md:13'],
    ]);
  });

  it('a ts block is code a test of its own runs, named in the comment before it', () => {
    const text = md('Use it:', '', '<!-- run by: test/adapter-examples.test.ts -->', '```ts', "import { compact } from 'ctxbench';", '```', '```ts', 'x', '```');
    expect(markdownExamples(text, 'R.md')).toEqual([
      { kind: 'code', where: 'R.md:4', runBy: 'test/adapter-examples.test.ts' },
      { kind: 'code', where: 'R.md:7', runBy: undefined },
    ]);
  });

  it('a block after <!-- output of: ... --> is the output of its commands, one a line, with their exit codes', () => {
    const single = md('Prints:', '', '<!-- output of: npx bench run --window 32k -->', '```text', 'strategy  runs', '...', '```');
    expect(markdownExamples(single, 'R.md')).toEqual([{ kind: 'output', where: 'R.md:4', commands: [{ text: 'npx bench run --window 32k', exit: 0 }], text: 'strategy  runs\n...' }]);
    const several = md('<!-- output of:', 'bench run --strategy nope   # exit 1', 'bench run --db afile/x.duckdb   # exit 1', '-->', '```text', 'bench: ...', '```');
    expect(markdownExamples(several, 'R.md')[0]).toMatchObject({
      kind: 'output',
      commands: [
        { text: 'bench run --strategy nope', exit: 1 },
        { text: 'bench run --db afile/x.duckdb', exit: 1 },
      ],
    });
  });

  it('inline `bench ...`: a command runs; a synopsis or a bare mention names a command and flags', () => {
    const text = md(
      '| `bench report [--db file] [-o file.html\\|.json]` | render |',
      '| `bench merge a.duckdb b.duckdb ... -o all.duckdb` | merge |',
      'Run `bench run --scenario` with `npx bench run -s all --window 32k`, then `bench strategies`,',
      'or `bench report -o summary.md && cat summary.md >>',
      '"$GITHUB_STEP_SUMMARY"`; `--live measure|full` and `duckdb x.duckdb` are not bench.',
    );
    expect(markdownExamples(text, 'R.md')).toEqual([
      { kind: 'usage', where: 'R.md:1', text: 'bench report [--db file] [-o file.html\\|.json]' },
      { kind: 'usage', where: 'R.md:2', text: 'bench merge a.duckdb b.duckdb ... -o all.duckdb' },
      { kind: 'usage', where: 'R.md:3', text: 'bench run --scenario' },
      { kind: 'shell', where: 'R.md:3', commands: [{ text: 'npx bench run -s all --window 32k', exit: 0 }] },
      { kind: 'usage', where: 'R.md:3', text: 'bench strategies' },
      { kind: 'shell', where: 'R.md:4', commands: [{ text: 'bench report -o summary.md && cat summary.md >> "$GITHUB_STEP_SUMMARY"', exit: 0 }] },
    ]);
  });

  it('a yaml/json block after <!-- file: PATH --> is a file the commands after it read', () => {
    expect(markdownExamples(md('<!-- file: .ci/tolerances.yaml -->', '```yaml', 'inputTokens: rel:5%', '```'), 'R.md')).toEqual([
      { kind: 'data', where: 'R.md:2', language: 'yaml', text: 'inputTokens: rel:5%', file: '.ci/tolerances.yaml' },
    ]);
  });

  it('finds nothing inside a fenced block but the block itself', () => {
    expect(markdownExamples(md('```text', 'see `bench run -s all`', '```'), 'R.md')).toEqual([{ kind: 'text', where: 'R.md:1', text: 'see `bench run -s all`' }]);
  });
});

describe('inlineCode', () => {
  it('pairs a run of backticks with the next run of the same length', () => {
    expect(inlineCode('a `x` and ```` ```bash ```` and `y`').map((c) => c.code)).toEqual(['x', '```bash', 'y']);
  });
});

describe('shellCommands and helpExamples', () => {
  it('reads `# exit N` from a command’s comment; a # inside quotes is no comment', () => {
    expect(shellCommands('bench check --baseline b.json   # exit 100 on a regression\nbench run --batch-id "a#b"')).toEqual([
      { text: 'bench check --baseline b.json', exit: 100 },
      { text: 'bench run --batch-id "a#b"', exit: 0 },
    ]);
  });

  it('takes the indented lines under Examples: / Example:, without their notes in parentheses', () => {
    const help = md('Usage: bench run [options]', '', 'Options:', '  -s, --strategy <names>  strategy', '', 'Examples:', '  bench run --window 32k', '  bench run -s all --resume      (after an interruption)', '', 'Example:', '  bench merge a.duckdb -o all.duckdb', '');
    expect(helpExamples(help)).toEqual([
      { text: 'bench run --window 32k', exit: 0 },
      { text: 'bench run -s all --resume', exit: 0 },
      { text: 'bench merge a.duckdb -o all.duckdb', exit: 0 },
    ]);
  });
});

describe('andList and words', () => {
  it('splits on && outside quotes', () => {
    expect(andList('bench a && duckdb -c "select 1 && 2" && cat x')).toEqual(['bench a', 'duckdb -c "select 1 && 2"', 'cat x']);
  });

  it('splits words as a shell does, quotes removed', () => {
    expect(words(`bench run --scenario "logs/**/*.json" -m 'a b'`)).toEqual(['bench', 'run', '--scenario', 'logs/**/*.json', '-m', 'a b']);
  });
});

describe('missingOutput', () => {
  const printed = md('Token calibration: x', '', 'strategy  runs', '--------  ----', 'raw         12', 'masking     12', '', 'Results: /tmp/r.duckdb');

  it('an excerpt of consecutive lines, trailing spaces aside, is shown', () => {
    expect(missingOutput(md('strategy  runs  ', '--------  ----', 'raw         12'), printed)).toBeUndefined();
  });

  it('`...` stands for lines left out, and the parts keep their order', () => {
    expect(missingOutput(md('Token calibration: x', '...', 'masking     12'), printed)).toBeUndefined();
    expect(missingOutput(md('masking     12', '...', 'Token calibration: x'), printed)).toBe('Token calibration: x');
  });

  it('names the first line that is not printed where the excerpt says', () => {
    expect(missingOutput(md('strategy  runs', 'raw         12'), printed)).toBe('raw         12');
    expect(missingOutput(md('raw         13'), printed)).toBe('raw         13');
  });
});
