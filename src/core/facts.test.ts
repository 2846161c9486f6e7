import { readdirSync } from 'node:fs';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadScenario } from '../scenarios/load.js';
import type { Scenario } from '../scenarios/scenario.js';
import { extractFacts, FACT_PATTERNS, factsAt, factSpans, lineFacts, matchesOf, ownedFactSpans, seededUnit, type FactKind } from './facts.js';

const SCENARIO_DIRS = ['scenarios/mini-swe-agent-gemini3pro', 'scenarios/openhands-codeact-sonnet35'];
const SWE_ASTROPY = 'scenarios/mini-swe-agent-gemini3pro/astropy__astropy-13398.json';
const SWE_DJANGO = 'scenarios/mini-swe-agent-gemini3pro/django__django-13344.json';
const OPENHANDS_DJANGO = 'scenarios/openhands-codeact-sonnet35/django__django-10097.json';

/** Lines copied from the bundled scenarios (the guard test below checks they are there), with their facts. */
const REAL_LINES = {
  path: { file: SWE_DJANGO, line: 'django/utils/deprecation.py:class MiddlewareMixin:', facts: ['django/utils/deprecation.py', 'MiddlewareMixin'] },
  traceback: {
    file: SWE_ASTROPY,
    line: '  File "/testbed/astropy/coordinates/baseframe.py", line 1202, in transform_to',
    facts: ['testbed/astropy/coordinates/baseframe.py', '1202', 'transform_to'],
  },
  snakeCase: { file: SWE_DJANGO, line: '        self._get_response_none_deprecation(get_response)', facts: ['_get_response_none_deprecation', 'get_response'] },
  camelCase: { file: SWE_DJANGO, line: "logger = logging.getLogger('django.request')", facts: ['getLogger'] },
  pascalCase: { file: SWE_DJANGO, line: 'class RemovedInDjango40Warning(DeprecationWarning):', facts: ['RemovedInDjango40Warning', 'DeprecationWarning'] },
  number: { file: SWE_DJANGO, line: '    See #15363 for more details.', facts: ['15363'] },
  plainEnglish: { file: SWE_ASTROPY, line: 'I should check where the existing transforms involving ITRS, AltAz, and HADec are defined.', facts: [] },
  plainComment: { file: SWE_DJANGO, line: '        a thread is not consumed during a whole request.', facts: [] },
  plainAgent: { file: OPENHANDS_DJANGO, line: "Hmm, let me check if we need to go into the directory first:", facts: [] },
} as const;

const scenarios = new Map<string, Scenario>();
beforeAll(async () => {
  for (const dir of SCENARIO_DIRS) {
    for (const name of readdirSync(dir).filter((f) => f.endsWith('.json'))) scenarios.set(`${dir}/${name}`, (await loadScenario(`${dir}/${name}`)).scenario);
  }
});

/** Every distinct fact of every bundled scenario. */
const bundledFacts = (): string[] => [...new Set([...scenarios.values()].flatMap((s) => s.messages.flatMap((m) => extractFacts(m.content))))];

/** Share of `values` in each tenth of [0, 1). */
const deciles = (values: readonly number[]): number[] =>
  Array.from({ length: 10 }, (_, b) => values.filter((v) => v >= b / 10 && v < (b + 1) / 10).length / values.length);

describe('facts', () => {
  describe('extractFacts on real lines', () => {
    it.each(Object.entries(REAL_LINES))('%s', (_kind, { line, facts }) => {
      expect(extractFacts(line)).toEqual(facts);
    });

    it('the fixture lines are real: each appears in its bundled scenario', () => {
      for (const { file, line } of Object.values(REAL_LINES)) {
        const lines = scenarios.get(file)!.messages.flatMap((m) => m.content.split('\n'));
        expect(lines).toContain(line);
      }
    });

    it('lists facts once each, in order of first appearance', () => {
      expect(extractFacts('get_response then setup.cfg then get_response and 2048 then setup.cfg')).toEqual(['get_response', 'setup.cfg', '2048']);
    });

    it('finds hex hashes of 7 to 40 digits with a letter and a digit', () => {
      // No bundled line carries a true hash; a git log line as agents see it.
      expect(extractFacts('HEAD is now at 1f521cfc5c Fixed #32108 -- Made the admin faster.')).toEqual(['1f521cfc5c', '32108']);
      expect(extractFacts('commit 6500928dc0e1f2a3b4c5d6e7f8091a2b3c4d5e6f')).toEqual(['6500928dc0e1f2a3b4c5d6e7f8091a2b3c4d5e6f']);
    });
  });

  describe('what is not a fact', () => {
    it.each([
      ['short words and short identifiers', 'ok, a_b and getX, x.y, id_1'],
      ['numbers under 3 digits', 'step 42 of 99, v1.2'],
      ['hex without a digit, or shorter than 7', 'deadbeefcafe abc12 f00d'],
      ['plain English', 'Let me search for the class and then run the tests again.'],
      ['an empty line', ''],
    ])('%s', (_what, text) => {
      expect(extractFacts(text)).toEqual([]);
    });
  });

  describe('regressions', () => {
    // A float in scientific notation read as a hash: "4.757794158649631e-09" gave "757794158649631e".
    it('does not take the mantissa of a float in scientific notation for a hash', () => {
      expect(extractFacts('Difference from 90 deg: 4.757794158649631e-09 arcsec')).toEqual([]);
    });

    // PascalCase names that start with an acronym (URLValidator, HTTPResponse) were missed.
    it('finds PascalCase identifiers that start with an acronym', () => {
      expect(extractFacts('Let me search for the URLValidator class:')).toEqual(['URLValidator']);
    });
  });

  describe('the fast forms of the patterns', () => {
    /** The rules as written: every pattern run plainly, a match inside an earlier kept one skipped. */
    const asWritten = (text: string): string[] => {
      const kept: [number, number][] = [];
      const found = new Map<string, number>();
      for (const [kind, pattern] of Object.entries(FACT_PATTERNS)) {
        for (const match of text.matchAll(pattern)) {
          const [start, end] = [match.index, match.index + match[0].length];
          const tooShort = match[0].length < (kind === 'snake' || kind === 'camel' ? 6 : 4);
          if (tooShort || kept.some(([s, e]) => start >= s && end <= e)) continue;
          kept.push([start, end]);
          if (!found.has(match[0])) found.set(match[0], start);
        }
      }
      return [...found.entries()].sort((a, b) => a[1] - b[1]).map(([fact]) => fact);
    };
    const plainMatches = (kind: FactKind, text: string): number[] => [...text.matchAll(FACT_PATTERNS[kind])].flatMap((m) => [m.index, m.index + m[0].length]);
    /** Texts dense in what the patterns look for, and in the characters around their edges. */
    const textArb = fc
      .array(fc.constantFrom('a', 'Z', 'f', '_', '-', '.', '/', './', ' ', '\n', '1', '9', '0x', 'py', '.py', 'x.ts', 'abc123', 'deadbeef1', 'get_response', 'camelCase', 'URLValidator', '1234', '3.14', 'e-09', 'é', '"', ':', '__', 'A', 'ABc', 'Ab1C', '.5', '123.45', '7', 'x_1', 'cafe', '0'), { maxLength: 40 })
      .map((parts) => parts.join(''));
    const bundledTexts = (): string[] =>
      [...scenarios.values()].flatMap((s) => s.messages.flatMap((m) => [m.content, ...(m.role === 'assistant' ? m.toolCalls.map((c) => c.arguments) : [])]));

    it('each kind finds exactly what its pattern as written finds', () => {
      fc.assert(
        fc.property(textArb, fc.constantFrom(...(Object.keys(FACT_PATTERNS) as FactKind[])), (text, kind) => {
          expect(matchesOf(kind, text)).toEqual(plainMatches(kind, text));
        }),
        { numRuns: 5000 },
      );
    });

    /** `actual` gives what `expected` gives, on generated texts and every bundled message. */
    const agree = <T>(actual: (text: string) => T, expected: (text: string) => T, numRuns: number): void => {
      fc.assert(
        fc.property(textArb, (text) => {
          expect(actual(text)).toEqual(expected(text));
        }),
        { numRuns },
      );
      for (const text of bundledTexts()) expect(actual(text)).toEqual(expected(text));
    };

    it('extractFacts gives what the rules as written give, on generated texts and every bundled message', () => {
      agree(extractFacts, asWritten, 5000);
    });

    it("a text's fact spans, cut at its line breaks, are each line's facts: no fact spans a line break", () => {
      agree(
        (text) => lineFacts(text, factSpans(text)).map((line) => line?.facts ?? []),
        (text) => text.split('\n').map(extractFacts),
        3000,
      );
    });

    it("ownedFactSpans remembers an owner's text's spans, and only for that text", () => {
      const owner = {};
      const spans = ownedFactSpans(owner, 'see django/db/models.py and get_response');
      expect(factsAt('see django/db/models.py and get_response', spans)).toEqual(['django/db/models.py', 'get_response']);
      expect(ownedFactSpans(owner, 'see django/db/models.py and get_response')).toBe(spans);
      expect(factsAt('commit 1f521cfc5c', ownedFactSpans(owner, 'commit 1f521cfc5c'))).toEqual(['1f521cfc5c']);
      expect(ownedFactSpans(owner, 'see django/db/models.py and get_response')).toBe(spans);
    });

    it('paths: found from where a run starts, or where the search resumed inside one', () => {
      const long = `${'x'.repeat(500)}/a.py`;
      expect(matchesOf('path', long)).toEqual([0, long.length]);
      // The match ends inside the run "b.py-x": the search resumes at the '-'.
      const resumed = 'see a/b.py-x and c/d.rs.';
      expect(plainMatches('path', resumed)).toEqual([4, 10, 17, 23]);
      expect(matchesOf('path', resumed)).toEqual(plainMatches('path', resumed));
    });
  });

  describe('seededUnit', () => {
    it('is stable: the same (seed, key) always gives the same number in [0, 1)', () => {
      expect(seededUnit(1, 'django/utils/deprecation.py')).toBe(0.23848507599905133);
      expect(seededUnit(2, 'django/utils/deprecation.py')).toBe(0.9321776013821363);
      expect(seededUnit(1, '')).toBe(0.8778838615398854);
      for (const key of ['a', 'get_response', '15363', 'é中文']) {
        const u = seededUnit(7, key);
        expect(u).toBe(seededUnit(7, key));
        expect(u).toBeGreaterThanOrEqual(0);
        expect(u).toBeLessThan(1);
      }
    });

    it('is roughly uniform over the facts of the bundled scenarios, for every seed', () => {
      const facts = bundledFacts();
      expect(facts.length).toBeGreaterThan(1000);
      for (const seed of [1, 2, 3]) {
        const values = facts.map((f) => seededUnit(seed, f));
        deciles(values).forEach((share) => expect(Math.abs(share - 0.1)).toBeLessThan(0.03));
        // What the mock's default recall (0.8) keeps.
        expect(Math.abs(values.filter((v) => v < 0.8).length / values.length - 0.8)).toBeLessThan(0.03);
      }
    });

    it('draws independently per seed', () => {
      const facts = bundledFacts().slice(0, 500);
      const agree = facts.filter((f) => seededUnit(1, f) < 0.5 === seededUnit(2, f) < 0.5).length / facts.length;
      expect(Math.abs(agree - 0.5)).toBeLessThan(0.1);
    });

    // Regression: FNV-1a without a final mix clustered keys that differ only in their last characters
    // (sequential numbers, numbered probes): seed 1 put none of "10000".."10199" below 0.2.
    it('is roughly uniform over keys that differ only in their last characters', () => {
      const values = Array.from({ length: 200 }, (_, i) => seededUnit(1, String(10_000 + i)));
      deciles(values).forEach((share) => expect(Math.abs(share - 0.1)).toBeLessThan(0.05));
    });
  });
});
