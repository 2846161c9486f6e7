/**
 * The tool calls that carry no fact: the first step's look around the repository, and the read_file,
 * grep, bash, edit_file and write_file calls of every later step, sized by the drawn token count.
 */
import { CPT } from './sizes.js';
import { fill, type Text } from './text.js';
import { bashCall, testOutput, type ToolCallDraft } from './tool-calls.js';
import { COMMIT_MESSAGES, NOUNS, PACKAGES, VARS } from './vocabulary.js';

/** The first step's call: a listing of the repository's source and test files. */
export function exploreCall(text: Text, tokens: number): ToolCallDraft {
  const w = text.world;
  const lines = fill(tokens * CPT.paths, () => `./${text.rng.chance(0.7) ? text.file() : text.test()}`, 5);
  return bashCall(text, `find . -name '*.${w.lang === 'python' ? 'py' : 'ts'}' -not -path './node_modules/*' | head -n ${lines.length}`, lines.join('\n'), 0, 'get an overview of the repository');
}

/**
 * A filler tool call of about `tokens` tokens of output (`empty` gives an empty result); `readOnly`
 * (parallel steps) leaves out edits and writes.
 */
export function fillerCall(text: Text, tokens: number, empty: boolean, readOnly: boolean): ToolCallDraft {
  const r = text.rng;
  const w = text.world;
  const roll = r.unit() * (readOnly ? 0.85 : 1);
  if (roll < 0.3) {
    const file = text.file();
    if (empty) return { name: 'read_file', args: { path: file.replace(/[^/]+$/, w.lang === 'python' ? '__init__.py' : 'index.ts') }, output: '', intent: 'check the package entry point' };
    const start = r.chance(0.5) ? 1 : r.int(2, 400);
    const lines = text.numberedCode(tokens * CPT.code, start);
    const args = start === 1 ? { path: file } : { path: file, view_range: [start, start + lines.length - 1] };
    return { name: 'read_file', args, output: lines.join('\n'), intent: r.pick([`look at ${file}`, `read how ${file} handles this`, `open ${file}`]) };
  }
  if (roll < 0.5) {
    const pattern = r.chance(0.7) ? text.fn() : r.pick(VARS);
    if (empty) return { name: 'grep', args: { pattern: `${pattern}(`, path: 'tests/' }, output: '', intent: `check whether the tests call \`${pattern}\`` };
    const lines = fill(tokens * CPT.code, () => `${r.chance(0.8) ? text.file() : text.test()}:${r.int(1, 1200)}:${text.codeLine()}`);
    return { name: 'grep', args: { pattern, path: '.' }, output: lines.join('\n'), intent: `find every use of \`${pattern}\`` };
  }
  if (roll < 0.85) return fillerBash(text, tokens, empty);
  if (roll < 0.95) {
    const file = text.file();
    const old = fill(r.int(40, 200), () => text.codeLine()).join('\n');
    const fresh = fill(r.int(40, 400), () => text.codeLine()).join('\n');
    const start = r.int(1, 600);
    const snippet = text.numberedCode(Math.min(tokens * CPT.code, 1600), start, 4);
    return {
      name: 'edit_file',
      args: { path: file, old_str: old, new_str: fresh },
      output: `The file ${file} has been edited. Here's the result of running \`cat -n\` on a snippet of ${file}:\n${snippet.join('\n')}\nReview the changes and make sure they are as expected.`,
      intent: `update ${file}`,
    };
  }
  const file = r.chance(0.5) ? text.test().replace(/(\.test)?\.(py|ts)$/, (m) => `_regression${m}`) : `scripts/reproduce_${r.pick(NOUNS)}.${w.lang === 'python' ? 'py' : 'ts'}`;
  const content = fill(r.int(200, 1400), () => text.codeLine()).join('\n');
  return { name: 'write_file', args: { path: file, content }, output: `File created successfully at: ${file}`, intent: `write ${file}` };
}

function fillerBash(text: Text, tokens: number, empty: boolean): ToolCallDraft {
  const r = text.rng;
  const w = text.world;
  if (empty) {
    const command = r.pick(['git add -A', `mkdir -p ${text.file().replace(/\/[^/]+$/, '/fixtures')}`, `grep -q TODO ${text.file()}`, 'git stash']);
    return bashCall(text, command, '', command.startsWith('grep') ? 1 : 0, 'stage the change');
  }
  switch (r.int(0, 6)) {
    case 0:
    case 1: {
      const test = r.chance(0.5) ? w.target.test : text.test();
      const failing = r.chance(0.4);
      return bashCall(text, w.lang === 'python' ? `python -m pytest ${test} -q` : `npx vitest run ${test}`, testOutput(text, tokens * CPT.tests, test, failing), failing ? 1 : 0, `run ${test}`);
    }
    case 2: {
      const lines = fill(tokens * CPT.listing, () => `${r.pick(['-rw-r--r--', '-rw-r--r--', 'drwxr-xr-x'])} 1 dev dev ${String(r.int(0, 99_999)).padStart(6)} Nov ${String(r.int(1, 28)).padStart(2)} ${String(r.int(0, 23)).padStart(2, '0')}:${String(r.int(0, 59)).padStart(2, '0')} ${r.pick([text.file(), text.test()]).split('/').pop()!}`);
      return bashCall(text, `ls -la ${text.file().replace(/\/[^/]+$/, '')}`, lines.join('\n'), 0, 'list the package');
    }
    case 3: {
      const file = text.file();
      const lines = [`diff --git a/${file} b/${file}`, `index ${r.hex(7)}..${r.hex(7)} 100644`, `--- a/${file}`, `+++ b/${file}`];
      lines.push(...fill(tokens * CPT.diff, () => (r.chance(0.15) ? `@@ -${r.int(1, 900)},${r.int(3, 12)} +${r.int(1, 900)},${r.int(3, 12)} @@` : `${r.pick([' ', ' ', '+', '-'])}${text.codeLine()}`)));
      return bashCall(text, `git diff ${file}`, lines.join('\n'), 0, 'review the diff so far');
    }
    case 4: {
      const lines = fill(tokens * CPT.commits, () => `${r.hex(12)} ${r.pick(COMMIT_MESSAGES)}`);
      return bashCall(text, `git log --oneline -n ${lines.length} -- ${text.file()}`, lines.join('\n'), 0, 'see who touched this last');
    }
    case 5: {
      const lines = fill(tokens * CPT.log, () => text.logLine());
      return bashCall(text, `tail -n ${lines.length} logs/app.log`, lines.join('\n'), 0, 'look at the application log');
    }
    default: {
      if (w.lang === 'typescript' && r.chance(0.5)) {
        const lines = fill(tokens * CPT.tsc, () => `${text.file()}(${r.int(1, 900)},${r.int(1, 80)}): error TS${r.int(2000, 2999)}: ${r.pick(["Argument of type 'string' is not assignable to parameter of type 'number'.", "Object is possibly 'undefined'.", `Property '${text.v()}' does not exist on type '${text.cls()}'.`])}`);
        return bashCall(text, 'npx tsc --noEmit', lines.join('\n'), 2, 'type-check the project');
      }
      const pkgs = r.sample(PACKAGES, 4);
      const lines = fill(tokens * CPT.pip, () => {
        const p = r.pick(pkgs);
        return r.chance(0.5) ? `Collecting ${p}>=${r.int(1, 9)}.${r.int(0, 30)}` : `  Downloading ${p}-${r.int(1, 9)}.${r.int(0, 30)}.${r.int(0, 9)}-py3-none-any.whl (${r.int(10, 999)} kB)`;
      });
      lines.push(`Successfully installed ${pkgs.join(' ')}`);
      return bashCall(text, `pip install -e '.[dev]'`, lines.join('\n'), 0, 'install the dev dependencies');
    }
  }
}
