/**
 * The made-up repository a scenario works in: its language, project, files, tests, functions and
 * classes, how its bash tool reports exit codes, and the bug the task is about. Drawn once per
 * scenario from the "world" stream.
 */
import { camel, pascal, snake } from './casing.js';
import type { BashStyle } from './options.js';
import type { Rng } from './random.js';
import { CLASS_SUFFIXES, MODULES, NOUNS, PROJECTS, SUBPACKAGES, VERBS } from './vocabulary.js';

export type Lang = 'python' | 'typescript';

export interface World {
  readonly lang: Lang;
  readonly project: string;
  readonly root: string;
  readonly files: readonly string[];
  readonly tests: readonly string[];
  readonly functions: readonly string[];
  readonly classes: readonly string[];
  readonly bashStyle: BashStyle;
  /** The bug the task is about. */
  readonly target: { readonly file: string; readonly fn: string; readonly test: string; readonly noun: string };
}

export function buildWorld(rng: Rng, bashStyle: BashStyle | undefined): World {
  const lang: Lang = rng.chance(0.6) ? 'python' : 'typescript';
  const project = rng.pick(PROJECTS);
  const ext = lang === 'python' ? 'py' : 'ts';
  const base = lang === 'python' ? `src/${project}` : 'src';
  const modules = rng.sample(MODULES, rng.int(18, 26));
  const files = modules.map((m) => {
    const name = lang === 'python' ? m : m.replace(/_(\w)/g, (_, c: string) => c.toUpperCase());
    return `${base}/${rng.pick(SUBPACKAGES)}/${name}.${ext}`;
  });
  const tests = modules.map((m) => (lang === 'python' ? `tests/test_${m}.py` : `test/${m.replace(/_(\w)/g, (_, c: string) => c.toUpperCase())}.test.ts`));
  const fnSet = new Set<string>();
  while (fnSet.size < 40) {
    const [v, n] = [rng.pick(VERBS), rng.pick(NOUNS)];
    fnSet.add(lang === 'python' ? snake(v, n) : camel(v, n));
  }
  const functions = [...fnSet];
  const classes = rng.sample(NOUNS, 10).map((n) => pascal(n) + rng.pick(CLASS_SUFFIXES));
  const t = rng.int(0, files.length - 1);
  return {
    lang,
    project,
    root: `/workspace/${project}`,
    files,
    tests,
    functions,
    classes,
    bashStyle: bashStyle ?? (rng.chance(0.5) ? 'openhands' : 'returncode'),
    target: { file: files[t]!, fn: functions[0]!, test: tests[t]!, noun: rng.pick(NOUNS) },
  };
}
