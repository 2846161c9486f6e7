import { readdirSync } from 'node:fs';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { textMessage } from '../../test/helpers/text-messages.js';
import { assistantMessage, strategyOrigin, systemMessage, toolMessage, userMessage, withContent, type Message } from '../core/messages.js';
import { loadScenario } from '../scenarios/load.js';
import { generateScenario } from '../scenarios/generate/index.js';
import { parseScenario, type Scenario } from '../scenarios/scenario.js';
import { turns } from '../scenarios/turns.js';
import { argumentTexts, messageFacts, followRun, presentInContext, referenceTargets, referenceTargetsOf, targetsPresent } from './reference-recall.js';
import { appendOnlyCopy } from '../core/append-only.js';
import { mentionsIndex } from './context-text.js';

// ---------------------------------------------------------------------------------------------------
// Named fixtures: a hand-built history whose targets are computed by hand below.
// ---------------------------------------------------------------------------------------------------

const bash = (id: string, command: string) => ({ id, name: 'bash', arguments: JSON.stringify({ command }) });

const SYSTEM = systemMessage({ id: 'm0000', content: 'You are a coding agent. Never edit vendor_bundle.js.' });
const TASK = userMessage({ id: 'm0001', content: 'Fix parse_config in config/loader.py: the timeout is wrong.' });
// step 0: uses parse_config (first seen in the task): no target.
const STEP_0 = assistantMessage({ id: 'm0002', content: 'Searching for parse_config.', toolCalls: [bash('c0', 'grep -rn parse_config .')] });
// First seen here: config/defaults.py, DEFAULT_TIMEOUT, 3600, vendor/vendor_bundle.js.
const GREP = toolMessage({
  id: 'm0003',
  toolCallId: 'c0',
  name: 'bash',
  content: './config/loader.py:12:def parse_config(path):\n./config/defaults.py:3:DEFAULT_TIMEOUT = 3600\n./vendor/vendor_bundle.js:1:parse_config',
});
// step 1: uses config/loader.py (task): no target.
const STEP_1 = assistantMessage({ id: 'm0004', content: 'Reading the loader.', toolCalls: [bash('c1', 'cat config/loader.py')] });
// First seen here: load_yaml (never used again: never a target).
const LOADER = toolMessage({ id: 'm0005', toolCallId: 'c1', name: 'bash', content: 'def parse_config(path):\n    return load_yaml(path, timeout=DEFAULT_TIMEOUT)' });
// step 2, two turns after GREP: DEFAULT_TIMEOUT, 3600, config/defaults.py are targets; vendor_bundle.js
// (system prompt) is not; /repo/config/defaults.py was never seen and resolves to config/defaults.py.
const STEP_2 = assistantMessage({
  id: 'm0006',
  content: 'DEFAULT_TIMEOUT is 3600 in config/defaults.py; vendor_bundle.js is off limits.',
  toolCalls: [bash('c2', 'sed -n 1,5p /repo/config/defaults.py')],
});
// First seen here: RETRY_LIMIT.
const DEFAULTS = toolMessage({ id: 'm0007', toolCallId: 'c2', name: 'bash', content: 'DEFAULT_TIMEOUT = 3600\nRETRY_LIMIT = 5' });
// The user repeats RETRY_LIMIT (still first seen in a tool output) and names helper_name_v2 (first seen here).
const FOLLOW_UP = userMessage({ id: 'm0008', content: 'Also check RETRY_LIMIT and use helper_name_v2.' });
// step 3: RETRY_LIMIT is a target, helper_name_v2 is not; /repo/config/defaults.py again stands for config/defaults.py.
const STEP_3 = assistantMessage({
  id: 'm0009',
  content: 'Checking RETRY_LIMIT and helper_name_v2.',
  toolCalls: [bash('c3', 'grep -n RETRY_LIMIT /repo/config/defaults.py')],
});
const LAST = toolMessage({ id: 'm0010', toolCallId: 'c3', name: 'bash', content: '3:RETRY_LIMIT = 5' });

const HISTORY = [SYSTEM, TASK, STEP_0, GREP, STEP_1, LOADER, STEP_2, DEFAULTS, FOLLOW_UP, STEP_3, LAST] as const;
const HISTORY_TARGETS = new Map<number, string[]>([
  [0, []],
  [1, []],
  [2, ['DEFAULT_TIMEOUT', '3600', 'config/defaults.py']],
  [3, ['RETRY_LIMIT', 'config/defaults.py']],
]);

/** `ls` shows a bare file name; the agent opens it under its folder. */
const LS_HISTORY = [
  userMessage({ id: 'm0000', content: 'Look at the package.' }),
  assistantMessage({ id: 'm0001', content: '', toolCalls: [bash('c0', 'ls pkg')] }),
  toolMessage({ id: 'm0002', toolCallId: 'c0', name: 'bash', content: 'README.md\nsetup.cfg\nsrc/' }),
  assistantMessage({ id: 'm0003', content: '', toolCalls: [bash('c1', 'cat pkg/setup.cfg')] }),
  toolMessage({ id: 'm0004', toolCallId: 'c1', name: 'bash', content: '[metadata]' }),
] as const;

/** The agent writes a name itself; its own result echoes it; a later turn uses it: no target. */
const OWN_WORDS_HISTORY = [
  userMessage({ id: 'm0000', content: 'Add a helper.' }),
  assistantMessage({ id: 'm0001', content: '', toolCalls: [bash('c0', "echo 'def compute_total(): pass' > util.py && cat util.py")] }),
  toolMessage({ id: 'm0002', toolCallId: 'c0', name: 'bash', content: 'def compute_total(): pass' }),
  assistantMessage({ id: 'm0003', content: 'Now call compute_total from util.py.', toolCalls: [bash('c1', 'python -c "import util; util.compute_total()"')] }),
  toolMessage({ id: 'm0004', toolCallId: 'c1', name: 'bash', content: '' }),
] as const;

/** A JSON escape and a number value in the arguments (the view_range of a file viewer). */
const ARGUMENTS_HISTORY = [
  userMessage({ id: 'm0000', content: 'Why does it crash?' }),
  assistantMessage({ id: 'm0001', content: '', toolCalls: [bash('c0', 'grep -n yaml lib.py')] }),
  toolMessage({ id: 'm0002', toolCallId: 'c0', name: 'bash', content: '1265:def load_yaml(path):' }),
  assistantMessage({
    id: 'm0003',
    content: '',
    toolCalls: [
      { id: 'c1', name: 'bash', arguments: JSON.stringify({ command: 'cd /repo\nload_yaml' }) },
      { id: 'c2', name: 'view', arguments: JSON.stringify({ path: 'lib.py', view_range: [1265, 1300] }) },
    ],
  }),
  toolMessage({ id: 'm0004', toolCallId: 'c1', name: 'bash', content: '' }),
  toolMessage({ id: 'm0005', toolCallId: 'c2', name: 'view', content: '' }),
] as const;

// ---------------------------------------------------------------------------------------------------
// Real turns of the bundled scenarios, checked by hand (the guard tests below re-check the reasons).
// ---------------------------------------------------------------------------------------------------

const SWE_DJANGO = 'scenarios/mini-swe-agent-gemini3pro/django__django-13344.json';
const SWE_ASTROPY = 'scenarios/mini-swe-agent-gemini3pro/astropy__astropy-13398.json';
const OPENHANDS_DJANGO = 'scenarios/openhands-codeact-sonnet35/django__django-10097.json';
const OPENHANDS_ASTROPY = 'scenarios/openhands-codeact-sonnet35/astropy__astropy-14598.json';
const SCENARIO_DIRS = ['scenarios/mini-swe-agent-gemini3pro', 'scenarios/openhands-codeact-sonnet35'];

interface RealTurn {
  readonly file: string;
  readonly step: number;
  readonly targets: readonly string[];
  /** The tool result (by the step whose call it answers) where every target first appears. */
  readonly shownBy: number;
  readonly why: string;
}

const REAL_TURNS: Record<string, RealTurn> = {
  grepThenCat: {
    file: SWE_DJANGO,
    step: 2,
    targets: ['django/utils/deprecation.py'],
    shownBy: 1,
    why: '`grep -r "class MiddlewareMixin" django/` printed the path; the agent cats it (MiddlewareMixin itself is in the task)',
  },
  lsThenCat: {
    file: SWE_ASTROPY,
    step: 1,
    targets: ['builtin_frames', 'itrs.py', 'altaz.py', 'hadec.py', 'intermediate_rotation_transforms.py', 'cirs_observed_transforms.py', 'icrs_observed_transforms.py'],
    shownBy: 0,
    why: '`ls -R astropy/coordinates` listed the folder and the bare file names; the agent names them under astropy/coordinates/builtin_frames/',
  },
  findThenAbsolutePath: {
    file: OPENHANDS_DJANGO,
    step: 3,
    targets: ['django/core/validators.py'],
    shownBy: 2,
    why: '`find . -name validators.py` printed ./django/core/validators.py; the agent opens /workspace/django__django__2.2/django/core/validators.py',
  },
  grepLineThenViewRange: {
    file: OPENHANDS_ASTROPY,
    step: 23,
    targets: ['_format_value', 'card.py', '1265'],
    shownBy: -1, // several: card.py from step 0's listing, 1265 and _format_value from step 22's grep
    why: "grep printed `1265:def _format_value(value):`; the agent views card.py with view_range [1265, 1300] (a number in the arguments)",
  },
};

const scenarios = new Map<string, Scenario>();
beforeAll(async () => {
  for (const dir of SCENARIO_DIRS) {
    for (const name of readdirSync(dir).filter((f) => f.endsWith('.json'))) scenarios.set(`${dir}/${name}`, (await loadScenario(`${dir}/${name}`)).scenario);
  }
});

/** Content and call arguments of a message, raw. */
const rawText = (m: Message): string => [m.content, ...(m.role === 'assistant' ? m.toolCalls.map((c) => c.arguments) : [])].join('\n');
/** The history before agent step `step`. */
const before = (scenario: Scenario, step: number): readonly Message[] => scenario.messages.slice(0, turns(scenario)[step]!.index);

describe('reference-recall', () => {
  describe('referenceTargets on a hand-built history', () => {
    it('keys every agent step and lists exactly the hand-computed targets', () => {
      expect(new Map([...referenceTargetsOf(HISTORY)].map(([k, v]) => [k, [...v]]))).toEqual(HISTORY_TARGETS);
    });

    it('a fact first seen in the task or the system prompt is not a target, even after a tool output shows it', () => {
      const all = [...referenceTargetsOf(HISTORY).values()].flat();
      expect(all).not.toContain('parse_config');
      expect(all).not.toContain('config/loader.py');
      expect(all).not.toContain('vendor_bundle.js');
    });

    it('a fact first seen in a tool output and used two turns later is a target; one never reused is not', () => {
      expect(referenceTargetsOf(HISTORY).get(2)).toContain('3600'); // shown by GREP, answer to step 0
      expect([...referenceTargetsOf(HISTORY).values()].flat()).not.toContain('load_yaml');
    });

    it('a fact first seen in a tool output stays a reference when a user repeats it; one a user introduces is not', () => {
      expect(referenceTargetsOf(HISTORY).get(3)).toContain('RETRY_LIMIT');
      expect(referenceTargetsOf(HISTORY).get(3)).not.toContain('helper_name_v2');
    });

    it("a bare file name from `ls`, opened under its folder, is a target", () => {
      expect([...referenceTargetsOf(LS_HISTORY)]).toEqual([
        [0, []],
        [1, ['setup.cfg']],
      ]);
    });

    it("the agent's own words are not references, even when its tool output echoes them", () => {
      expect([...referenceTargetsOf(OWN_WORDS_HISTORY)]).toEqual([
        [0, []],
        [1, []],
      ]);
    });

    it('reads decoded argument values: a \\n escape does not glue an n on, numbers count', () => {
      expect(referenceTargetsOf(ARGUMENTS_HISTORY).get(1)).toEqual(['load_yaml', '1265']);
    });

    it('an empty or tool-less history has no steps; a history with no tool outputs has no targets', () => {
      expect(referenceTargetsOf([]).size).toBe(0);
      const chat = [userMessage({ id: 'u', content: 'What is parse_config?' }), assistantMessage({ id: 'a', content: 'parse_config reads config/loader.py.' })];
      expect([...referenceTargetsOf(chat)]).toEqual([[0, []]]);
    });
  });

  describe('referenceTargets on real turns', () => {
    it.each(Object.entries(REAL_TURNS))('%s', (_name, { file, step, targets }) => {
      expect(referenceTargets(scenarios.get(file)!).get(step)).toEqual(targets);
    });

    it('the reasons hold: each target is in an earlier tool output and in no earlier non-tool message', () => {
      for (const { file, step, targets, shownBy } of Object.values(REAL_TURNS)) {
        const scenario = scenarios.get(file)!;
        const history = before(scenario, step);
        for (const target of targets) {
          const first = history.find((m) => rawText(m).includes(target));
          expect(first?.role, `${file} step ${step}: ${target}`).toBe('tool');
          if (shownBy >= 0) expect(turns(scenario)[shownBy]!.after.some((m) => m.content.includes(target)), `${target} shown by step ${shownBy}`).toBe(true);
        }
      }
    });

    it('the made-absolute path of findThenAbsolutePath is what the agent sent', () => {
      const scenario = scenarios.get(OPENHANDS_DJANGO)!;
      expect(turns(scenario)[3]!.assistant.toolCalls[0]!.arguments).toContain('/workspace/django__django__2.2/django/core/validators.py');
      expect(turns(scenario)[2]!.after[0]!.content).toContain('./django/core/validators.py');
    });

    it('keys every step of every bundled scenario, and the unmanaged history keeps every target', () => {
      for (const scenario of scenarios.values()) {
        const targets = referenceTargets(scenario);
        expect([...targets.keys()]).toEqual(turns(scenario).map((_, i) => i));
        for (const [step, list] of targets) expect(presentInContext(list, before(scenario, step))).toBe(list.length);
      }
    });

    it('the unmanaged history keeps every target on generated scenarios too (the runner counts on it)', () => {
      for (const seed of [1, 2, 3]) {
        const scenario = parseScenario(generateScenario({ seed, steps: 120 }), `<generated seed ${seed}>`);
        for (const [step, list] of referenceTargets(scenario)) expect(presentInContext(list, before(scenario, step))).toBe(list.length);
      }
    });

    it('targets are what the turn uses: every one is a fact of the turn, or a suffix of one', () => {
      for (const scenario of scenarios.values()) {
        const all = turns(scenario);
        for (const [step, list] of referenceTargets(scenario)) {
          const used = messageFacts(all[step]!.assistant);
          for (const target of list) expect(used.some((f) => f === target || f.endsWith(`/${target}`)), `${scenario.id} step ${step}: ${target}`).toBe(true);
        }
      }
    });
  });

  describe('presentInContext', () => {
    it('counts the targets found in content or call arguments', () => {
      const context = [SYSTEM, TASK, STEP_0, GREP];
      expect(presentInContext(['3600', 'config/defaults.py', 'DEFAULT_TIMEOUT'], context)).toBe(3);
      expect(presentInContext(['grep -rn', 'load_yaml', 'RETRY_LIMIT'], context)).toBe(1); // only the call's arguments hold one
    });

    it('no targets, none present', () => {
      expect(presentInContext([], HISTORY)).toBe(0);
      expect(presentInContext(['3600'], [])).toBe(0);
    });

    it('a masked tool output loses what only it held', () => {
      const masked = withContent(GREP, '[bash output omitted]', strategyOrigin('masking', 'masked'));
      expect(presentInContext(HISTORY_TARGETS.get(2)!, [SYSTEM, TASK, STEP_0, GREP, STEP_1, LOADER])).toBe(3);
      // DEFAULT_TIMEOUT survives in LOADER; 3600 and config/defaults.py only were in GREP.
      expect(presentInContext(HISTORY_TARGETS.get(2)!, [SYSTEM, TASK, STEP_0, masked, STEP_1, LOADER])).toBe(1);
    });

    it('a summary that kept a target keeps it present', () => {
      const summary = systemMessage({ id: 's', content: 'Timeout is 3600 (config/defaults.py).', origin: strategyOrigin('summarization', 'summary') });
      expect(presentInContext(HISTORY_TARGETS.get(2)!, [SYSTEM, summary])).toBe(2);
    });

    it('a target never matches across two messages', () => {
      const left = userMessage({ id: 'l', content: 'see config/' });
      const right = userMessage({ id: 'r', content: 'defaults.py' });
      expect(presentInContext(['config/defaults.py'], [left, right])).toBe(0);
    });

    it('on a real turn: kept by the recorded history, lost when the grep output is masked', () => {
      const scenario = scenarios.get(SWE_DJANGO)!;
      const targets = referenceTargets(scenario).get(2)!;
      const history = before(scenario, 2);
      expect(presentInContext(targets, history)).toBe(1);
      const grep = turns(scenario)[1]!.after[0]!;
      const masked = history.map((m) => (m === grep ? withContent(m, '[output masked]', strategyOrigin('masking', 'masked')) : m));
      expect(presentInContext(targets, masked)).toBe(0);
    });
  });

  describe('targetsPresent', () => {
    it('property: counts what presentInContext counts, messages searched once whatever context holds them', () => {
      const unit = fc.constantFrom('a', 'b', '/', '.', '_', '1');
      const message = textMessage(unit, 12);
      fc.assert(
        fc.property(fc.array(fc.string({ unit, maxLength: 4 }), { maxLength: 8 }), fc.array(message, { minLength: 1, maxLength: 8 }), fc.array(fc.array(fc.nat(20)), { maxLength: 4 }), (all, messages, contexts) => {
          const present = targetsPresent(mentionsIndex(all));
          // Contexts share messages; the targets asked are some of `all` and one outside it.
          for (const picks of contexts) {
            const context = picks.map((k) => messages[k % messages.length]!);
            const targets = [...all.filter((_, i) => picks.includes(i)), 'b1/'];
            expect(present(targets, context)).toBe(presentInContext(targets, context));
          }
        }),
        { numRuns: 300 },
      );
    });

    it("property: followRun counts what presentInContext counts over a run's contexts, grown in place, cut, shifted or edited", () => {
      const unit = fc.constantFrom('a', 'b', '/', '1');
      const message = fc.string({ unit, maxLength: 8 }).map((content) => userMessage({ id: 'u', content }));
      // A step: append messages to the run's array (a strategy sending the history on); or start a new
      // array from its first messages (a cut), from all but its first (a shift: every place moves), or
      // from it with one message replaced (an edit: a masked output, in a plain array); or replace one
      // in place in such a plain array (never in an append-only one, which promises not to). Then
      // count some targets.
      const step = fc.record({
        edit: fc.constantFrom('grow', 'cut', 'shift', 'replace', 'in-place'),
        add: fc.array(message, { maxLength: 3 }),
        at: fc.nat(6),
        with: fc.nat(2), // one of a few messages: the same object can come back to a place it left
        ask: fc.array(fc.nat(5), { maxLength: 4 }),
      });
      fc.assert(
        fc.property(fc.array(fc.string({ unit, minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 6 }), fc.array(step, { maxLength: 12 }), fc.array(message, { minLength: 3, maxLength: 3 }), (all, steps, pool) => {
          const count = followRun(targetsPresent(mentionsIndex(all)));
          let context: Message[] = appendOnlyCopy([]);
          let plain = false;
          for (const s of steps) {
            if (s.edit === 'cut') [context, plain] = [appendOnlyCopy(context.slice(0, s.at)), false];
            if (s.edit === 'shift') [context, plain] = [appendOnlyCopy(context.slice(1)), false];
            if (s.edit === 'replace') [context, plain] = [context.map((m, i) => (i === s.at % context.length ? pool[s.with]! : m)), true];
            if (s.edit === 'in-place' && plain && context.length > 0) context[s.at % context.length] = pool[s.with]!;
            context.push(...s.add);
            const targets = s.ask.map((k) => all[k % all.length]!);
            expect(count(targets, context)).toBe(presentInContext(targets, context));
          }
        }),
        { numRuns: 500 },
      );
    });

    it('forgets what a message held once another takes its place, the first one back included', () => {
      const count = followRun(targetsPresent(mentionsIndex(['T'])));
      const [first, plain, holder] = ['first', 'x', 'has T'].map((content) => userMessage({ id: 'u', content }));
      expect(count(['T'], [first!, plain!])).toBe(0);
      expect(count(['T'], [first!, holder!])).toBe(1);
      expect(count(['T'], [first!, plain!])).toBe(0);
      const inPlace = [first!, holder!];
      expect(count(['T'], inPlace)).toBe(1);
      inPlace[1] = plain!;
      expect(count(['T'], inPlace)).toBe(0);
    });

    it('on real turns: the verdicts of presentInContext, with and without the grep output', () => {
      const scenario = scenarios.get(SWE_DJANGO)!;
      const all = referenceTargets(scenario);
      const present = targetsPresent(mentionsIndex([...all.values()].flat()));
      const grep = turns(scenario)[1]!.after[0]!;
      for (const [step, targets] of all) {
        const history = before(scenario, step);
        const masked = history.map((m) => (m === grep ? withContent(m, '[output masked]', strategyOrigin('masking', 'masked')) : m));
        expect(present(targets, history)).toBe(targets.length);
        expect(present(targets, masked)).toBe(presentInContext(targets, masked));
      }
    });
  });

  describe('argumentTexts', () => {
    it.each([
      ['string and number values, nested', '{"command":"echo hi\\nload_yaml","view_range":[1265,1300],"flag":true,"opts":{"path":"a/b.py"}}', ['echo hi\nload_yaml', '1265', '1300', 'a/b.py']],
      ['a JSON string', '"just text"', ['just text']],
      ['not JSON: the raw text', 'cat a.py {', ['cat a.py {']],
      ['no values', '{}', []],
    ])('%s', (_what, args, expected) => {
      expect(argumentTexts(args)).toEqual(expected);
    });
  });

  describe('messageFacts', () => {
    it("drops a path's leading ./ and reads an assistant's arguments", () => {
      expect(messageFacts(GREP)).toEqual(['config/loader.py', 'parse_config', 'config/defaults.py', 'DEFAULT_TIMEOUT', '3600', 'vendor/vendor_bundle.js']);
      expect(messageFacts(STEP_2)).toEqual(['DEFAULT_TIMEOUT', '3600', 'config/defaults.py', 'vendor_bundle.js', 'repo/config/defaults.py']);
    });
  });
});
