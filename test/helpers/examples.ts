/**
 * Finds the examples a user is shown, so test/examples.e2e.test.ts can run every one of them: the
 * fenced blocks and inline `bench ...` commands of README.md, and the "Examples:" of each `--help`.
 * Pure text work; what runs them, and how, is the test's.
 *
 * Conventions the README follows (and a new example must):
 * - a fenced block says its language: `sh`/`bash` (commands, one a line, `\` continues a line),
 *   `yaml`/`json` (a config file, a scenario file or a GitHub Actions workflow), `text` (anything else);
 * - a command that fails on purpose says so in its comment: `# exit 1`;
 * - a block that shows what commands print follows the comment `<!-- output of: COMMAND -->` (several
 *   commands: one a line inside the comment); a `...` line in it stands for lines left out;
 * - a yaml/json block that is a file the commands after it read (a tolerance file, say) follows
 *   `<!-- file: PATH -->`; without it, a yaml/json block is a scenario file when it has `ctxbench:`, a
 *   GitHub Actions workflow when it has `jobs:`, and a config file (ctxbench.config.yaml) otherwise;
 * - a `ts` block (code a user writes against the package) is run by a test of its own, which it names
 *   in the comment before it: `<!-- run by: test/FILE.test.ts -->`.
 */

/** One command line as a user types it: its trailing comment removed, the exit code it expects. */
export interface ExampleCommand {
  readonly text: string;
  readonly exit: number;
}

export type Example =
  /** Commands to run in order: a shell block, or one inline command. */
  | { readonly kind: 'shell'; readonly where: string; readonly commands: readonly ExampleCommand[] }
  /** An inline `bench ...` that names a command and its flags without running anything: a synopsis (`<file>`, `[--db file]`) or a reference (`bench run --scenario`). */
  | { readonly kind: 'usage'; readonly where: string; readonly text: string }
  /** A yaml or json file; `file`: where the commands after it read it from. */
  | { readonly kind: 'data'; readonly where: string; readonly language: 'yaml' | 'json'; readonly text: string; readonly file?: string }
  /** What `commands` print: each of its lines, in order, `...` for lines left out. */
  | { readonly kind: 'output'; readonly where: string; readonly commands: readonly ExampleCommand[]; readonly text: string }
  /** A text block that shows no command's output (a diagram, a listing). */
  | { readonly kind: 'text'; readonly where: string; readonly text: string }
  /** TypeScript a user writes against the package; `runBy`: the test that runs it, as its comment names it. */
  | { readonly kind: 'code'; readonly where: string; readonly runBy: string | undefined }
  | { readonly kind: 'unknown'; readonly where: string; readonly language: string };

const SHELL = new Set(['sh', 'bash', 'shell']);
const OUTPUT_MARKER = /<!--\s*output of:([\s\S]*?)-->\s*$/;
const FILE_MARKER = /<!--\s*file:\s*(\S+)\s*-->\s*$/;
const RUN_BY_MARKER = /<!--\s*run by:\s*(\S+)\s*-->\s*$/;

/** Every example of a markdown file, in document order; `file` names where each is (`README.md:27`). */
export function markdownExamples(markdown: string, file: string): Example[] {
  const lines = markdown.split('\n');
  const examples: Example[] = [];
  let paragraph: { start: number; lines: string[] } | undefined;
  const flush = (): void => {
    if (paragraph) examples.push(...inlineExamples(paragraph.lines.join('\n'), file, paragraph.start + 1));
    paragraph = undefined;
  };
  for (let i = 0; i < lines.length; i++) {
    const fence = /^(```+)\s*(\S*)/.exec(lines[i]!);
    if (!fence) {
      if (lines[i]!.trim() === '') flush();
      else (paragraph ??= { start: i, lines: [] }).lines.push(lines[i]!);
      continue;
    }
    const before = paragraph?.lines.join('\n') ?? '';
    flush();
    const end = lines.findIndex((line, j) => j > i && line.startsWith(fence[1]!));
    const body = lines.slice(i + 1, end < 0 ? lines.length : end).join('\n');
    examples.push(blockExample(fence[2]!.toLowerCase(), body, `${file}:${i + 1}`, before));
    i = end < 0 ? lines.length : end;
  }
  flush();
  return examples;
}

/** A fenced block, by its language and the comment (`before`, the paragraph up to the fence) that marks it. */
function blockExample(language: string, body: string, where: string, before: string): Example {
  const outputOf = OUTPUT_MARKER.exec(before)?.[1];
  if (outputOf !== undefined) return { kind: 'output', where, commands: shellCommands(outputOf), text: body };
  if (SHELL.has(language)) return { kind: 'shell', where, commands: shellCommands(body) };
  const file = FILE_MARKER.exec(before)?.[1];
  const data = language === 'yml' ? 'yaml' : language;
  if (data === 'yaml' || data === 'json') return { kind: 'data', where, language: data, text: body, ...(file ? { file } : {}) };
  if (language === 'text' || language === '') return { kind: 'text', where, text: body };
  if (language === 'ts' || language === 'typescript') return { kind: 'code', where, runBy: RUN_BY_MARKER.exec(before)?.[1] };
  return { kind: 'unknown', where, language };
}

/** The inline `bench ...` / `npx bench ...` commands of a paragraph starting at `line` (a table's rows included). */
function inlineExamples(paragraph: string, file: string, line: number): Example[] {
  return inlineCode(paragraph)
    .map(({ code, index }) => ({ code: code.replace(/\s*\n\s*/g, ' '), where: `${file}:${line + paragraph.slice(0, index).split('\n').length - 1}` }))
    .filter(({ code }) => /^(npx )?bench( |$)/.test(code))
    .map(({ code, where }) => (isUsage(code) ? { kind: 'usage', where, text: code } : { kind: 'shell', where, commands: shellCommands(code) }));
}

/** Markdown code spans (a run of backticks up to the next run of the same length), with where each starts. */
export function inlineCode(text: string): { code: string; index: number }[] {
  return [...text.matchAll(/(?<!`)(`+)(?!`)([\s\S]*?[^`])\1(?!`)/g)].map((m) => ({ code: m[2]!.trim(), index: m.index }));
}

/**
 * A synopsis rather than a command: placeholders (`<file>`), optional parts (`[--db file]`),
 * alternatives (`a\|b`, `measure|full`), or `...`; or only a command and flags with no values, which
 * names them (`bench run`, `bench run --scenario`). The test checks these against the program.
 */
function isUsage(code: string): boolean {
  if (/<\w|\[|\.\.\.|\S\\?\|\S/.test(code)) return true;
  const rest = words(code).slice(code.startsWith('npx ') ? 2 : 1);
  const firstFlag = rest.findIndex((w) => w.startsWith('-'));
  const names = firstFlag < 0 ? rest : rest.slice(0, firstFlag);
  return names.every((w) => /^[a-z][a-z-]*$/.test(w)) && rest.slice(names.length).every((w) => w.startsWith('-'));
}

/** The commands of a shell block: one a line (`\` continues one), whole-line comments and blank lines skipped. */
export function shellCommands(block: string): ExampleCommand[] {
  return block
    .replace(/\\\n\s*/g, '')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map(command);
}

/** A `--help` text's example commands: the indented lines under "Example:" / "Examples:". */
export function helpExamples(help: string): ExampleCommand[] {
  const commands: ExampleCommand[] = [];
  let inExamples = false;
  for (const line of help.split('\n')) {
    if (/^Examples?:\s*$/.test(line)) inExamples = true;
    else if (!line.startsWith('  ')) inExamples = false;
    // A help example's note is in parentheses after two spaces or more: "bench run ...   (after ...)".
    else if (inExamples) commands.push(command(line.trim().replace(/\s{2,}\(.*\)$/, '')));
  }
  return commands;
}

/** One line: its trailing `# comment` off; `# exit N` in it is the exit code the example expects. */
function command(line: string): ExampleCommand {
  const hash = outsideQuotes(line).findIndex((c, i) => c === '#' && (i === 0 || /\s/.test(line[i - 1]!)));
  const comment = hash < 0 ? '' : line.slice(hash);
  return { text: (hash < 0 ? line : line.slice(0, hash)).trim(), exit: Number(/\bexit (\d+)\b/.exec(comment)?.[1] ?? 0) };
}

/** A command line's parts joined by `&&`, each run only if the one before succeeded. */
export function andList(text: string): string[] {
  const quoted = outsideQuotes(text);
  const parts: string[] = [];
  let start = 0;
  for (let i = 0; i < text.length - 1; i++) {
    if (quoted[i] === '&' && quoted[i + 1] === '&') {
      parts.push(text.slice(start, i).trim());
      start = i + 2;
    }
  }
  return [...parts, text.slice(start).trim()].filter((p) => p !== '');
}

/** Shell-like words: split on spaces outside quotes, quotes removed. */
export function words(text: string): string[] {
  return [...text.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]!);
}

/** The line's characters with every quoted one blanked, so a search finds only what the shell sees. */
function outsideQuotes(text: string): string[] {
  let quote: string | undefined;
  return [...text].map((c) => {
    if (quote) {
      if (c === quote) quote = undefined;
      return ' ';
    }
    if (c === '"' || c === "'") {
      quote = c;
      return ' ';
    }
    return c;
  });
}

/** What commands printed (each one's stdout and stderr, in order) as a block of output is compared with. */
export function printedText(outputs: readonly string[]): string {
  return outputs.map((o) => o.replace(/\n$/, '')).filter((o) => o !== '').join('\n');
}

/**
 * Whether `output` shows `expected` (a README block): each run of the block's lines between `...` lines
 * appears in `output` as consecutive lines, in order; trailing spaces aside. Returns the first line not
 * found, or undefined when all are.
 */
export function missingOutput(expected: string, output: string): string | undefined {
  const have = output.split('\n').map((l) => l.trimEnd());
  const chunks = expected.split('\n').map((l) => l.trimEnd()).reduce<string[][]>(
    (all, line) => (line === '...' ? [...all, []] : [...all.slice(0, -1), [...all.at(-1)!, line]]),
    [[]],
  );
  let from = 0;
  for (const chunk of chunks.map(trimBlank).filter((c) => c.length > 0)) {
    const at = findRun(have, chunk, from);
    if (at < 0) return chunk.find((_, k) => findRun(have, chunk.slice(0, k + 1), from) < 0) ?? chunk[0];
    from = at + chunk.length;
  }
  return undefined;
}

function findRun(lines: readonly string[], run: readonly string[], from: number): number {
  for (let i = from; i + run.length <= lines.length; i++) if (run.every((line, k) => lines[i + k] === line)) return i;
  return -1;
}

const trimBlank = (lines: string[]): string[] => {
  const first = lines.findIndex((l) => l !== '');
  const last = lines.findLastIndex((l) => l !== '');
  return first < 0 ? [] : lines.slice(first, last + 1);
};
