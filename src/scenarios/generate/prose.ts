/**
 * The words around the tool calls: the system prompt, the task (an issue to resolve), the assistant's
 * thought before each call, its status updates and final answer, and the user's follow-ups.
 */
import { sentence } from './casing.js';
import type { Text } from './text.js';
import type { ToolCallDraft } from './tool-calls.js';
import type { World } from './world.js';

export function systemPrompt(world: World): string {
  return [
    'You are a software engineering agent working in a sandboxed Linux container.',
    `The repository is checked out at ${world.root}. You can call these tools:`,
    '- read_file(path, view_range?): show a file with line numbers.',
    '- grep(pattern, path): search files; prints path:line:text for every match.',
    `- bash(command): run a shell command; ${world.bashStyle === 'openhands' ? 'the output ends with "[Command finished with exit code N]"' : 'the output is wrapped as <returncode>N</returncode><output>...</output>'}.`,
    '- write_file(path, content): create or overwrite a file.',
    '- edit_file(path, old_str, new_str): replace one exact occurrence of old_str.',
    'Think before each action and explain what you are doing. Several independent tool calls may be made in one turn.',
    'Make minimal changes to non-test files; keep the public API stable; run the relevant tests before you finish.',
  ].join('\n');
}

export function taskPrompt(text: Text): string {
  const { target, root, project } = text.world;
  const r = text.rng;
  const symptom = r.pick([`drops the last ${target.noun} when the batch is empty`, `raises on a missing ${target.noun}`, `returns stale ${target.noun}s after a refresh`, `double-counts ${target.noun}s on retry`]);
  return [
    `<uploaded_files>\n${root}\n</uploaded_files>`,
    `I've uploaded the ${project} repository to ${root}. Please resolve the following issue:`,
    '',
    `<issue>\n#${r.int(100, 9999)}: \`${target.fn}\` ${symptom}\n\nSince the last release, \`${target.fn}\` in ${target.file} ${symptom}. ${sentence(text.phrase())} The regression shows up in ${target.test}.\n</issue>`,
    '',
    'Make the minimal changes to non-test files so the issue is resolved, and make sure the existing tests still pass.',
  ].join('\n');
}

const OPENERS = ['', '', '', 'Okay. ', 'Good, that helps. ', 'That narrows it down. ', 'Hmm, not what I expected. ', 'The output confirms my suspicion. ', 'Nothing surprising there. '];

export function thought(text: Text, step: number, drafts: readonly ToolCallDraft[]): string {
  const r = text.rng;
  const { fn, file } = text.world.target;
  if (step === 0) return `I'll start by exploring the repository to find where \`${fn}\` lives and how it is tested. Let me ${drafts[0]!.intent}.`;
  const why = r.chance(0.35) ? ` ${r.pick([`I suspect \`${fn}\` ${r.pick(['mishandles the empty case', 'reads a stale value', 'retries without resetting state'])}.`, `The bug is probably in ${file}.`, `I want to confirm ${text.phrase()}.`])}` : '';
  if (drafts.length === 1) return `${r.pick(OPENERS)}Let me ${drafts[0]!.intent}.${why}`;
  const intents = drafts.map((d) => d.intent);
  return `${r.pick(OPENERS)}I'll do ${drafts.length} things in parallel: ${intents.slice(0, -1).join(', ')} and ${intents.at(-1)!}.${why}`;
}

export function statusUpdate(text: Text): string {
  const { fn, file } = text.world.target;
  return `Status update: I've traced the problem to \`${fn}\` in ${file}; ${text.phrase()}. Before I change the behaviour, should I also ${text.rng.pick(['update the docs', 'add a changelog entry', 'keep the old keyword argument as an alias', 'touch the callers in other modules'])}?`;
}

export function followUp(text: Text): string {
  const r = text.rng;
  const { fn } = text.world.target;
  return r.pick([
    `Also, please make sure \`${fn}\` keeps working when the input is empty.`,
    `Quick note: other services import \`${text.fn()}\`, so don't change its signature.`,
    'Can you run the full test suite before you finish?',
    `Please don't modify ${text.file()}; another team owns it.`,
    'Yes, go ahead, but keep the change small.',
    `One more thing: add a regression test in ${text.world.target.test}.`,
  ]);
}

export function finalAnswer(text: Text): string {
  const { fn, file, test } = text.world.target;
  return `I've resolved the issue. \`${fn}\` in ${file} now ${text.rng.pick(['handles the empty case explicitly', 'refreshes its cached state before returning', 'resets the retry state between attempts'])}, and I added a regression test to ${test}. The targeted tests and the full suite pass.`;
}
