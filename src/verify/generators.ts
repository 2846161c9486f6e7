/**
 * What the project's properties run on (fast-check arbitraries), shared by `bench verify` and the
 * property tests: generated agent histories with parallel calls, empty, unicode and huge results,
 * user follow-ups and file writes with content; windows from back-to-back restarts up; parameter
 * settings anywhere in a strategy's documented ranges.
 */
import fc from 'fast-check';
import { defaultParams, paramEntries, parseValue, type Params, type ParamSpec, type ParamValue } from '../core/params.js';
import { parseScenario, type Scenario } from '../scenarios/scenario.js';
import type { ScenarioFileMessage } from '../scenarios/schema.js';
import type { Selection } from '../strategies/index.js';

const lines = (tokens: number): string => 'output line\n'.repeat(Math.round(tokens / 3));
const text = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 60 }) },
  { weight: 1, arbitrary: fc.constant('') },
  { weight: 1, arbitrary: fc.integer({ min: 50, max: 1000 }).map(lines) },
);
/** A fact a tool output shows and a later turn may use: what a reactive replay re-reads when a strategy took it out. */
const fact = fc.integer({ min: 0, max: 7 }).map((k) => `shared_fact_${k}`);
const withFact = (arbitrary: fc.Arbitrary<string>): fc.Arbitrary<string> => fc.oneof({ weight: 1, arbitrary }, { weight: 1, arbitrary: fc.tuple(arbitrary, fact).map(([t, f]) => `${t}\n${f}`) });

const TOOLS = ['bash', 'read_file', 'write_file', 'edit_file', 'str_replace_editor', 'search'] as const;

/** A call's arguments: file writes carry the content they write (offload's pointer rewrite takes it). */
function callArguments(name: (typeof TOOLS)[number], path: string, content: string, create: boolean): string {
  if (name === 'write_file') return JSON.stringify({ path, content });
  if (name === 'edit_file') return JSON.stringify({ path, old_text: 'x', new_text: content });
  if (name === 'str_replace_editor') return JSON.stringify(create ? { command: 'create', path, file_text: content } : { command: 'str_replace', path, old_str: 'x', new_str: content });
  return JSON.stringify({ path });
}

/**
 * Generated histories: one agent step is an assistant turn with 0..4 parallel calls, its results,
 * maybe a user follow-up. With `hugeTokens`, a result is now and then of about that many tokens.
 */
export function histories(hugeTokens = 0): fc.Arbitrary<Scenario> {
  const huge = fc.integer({ min: hugeTokens / 2, max: hugeTokens }).map(lines);
  const output = withFact(hugeTokens > 0 ? fc.oneof({ weight: 4, arbitrary: text }, { weight: 1, arbitrary: huge }) : text);
  const call = fc.record({ name: fc.constantFrom(...TOOLS), output, content: text, create: fc.boolean() });
  const step = fc.record({ thought: withFact(text), calls: fc.array(call, { maxLength: 4 }), followUp: fc.option(text, { freq: 6 }) });
  return fc.array(step, { minLength: 1, maxLength: 25 }).map((steps) => {
    const messages: ScenarioFileMessage[] = [
      { role: 'system', content: 'You are an agent.' },
      { role: 'user', content: 'Do the task.' },
    ];
    steps.forEach((s, i) => {
      const ids = s.calls.map((_, j) => `call_${i}_${j}`);
      messages.push({ role: 'assistant', content: s.thought, toolCalls: s.calls.map((c, j) => ({ id: ids[j]!, name: c.name, arguments: callArguments(c.name, `f${j}.py`, c.content, c.create) })) });
      s.calls.forEach((c, j) => messages.push({ role: 'tool', toolCallId: ids[j]!, name: c.name, content: c.output }));
      if (s.followUp !== null) messages.push({ role: 'user', content: s.followUp });
    });
    return parseScenario({ ctxbench: 1, id: 'generated', model: { name: 'gpt-4o' }, messages }, 'generated.json');
  });
}

/**
 * Windows and histories that reach a strategy's trigger: from 300 tokens (back-to-back restarts) to
 * 20,000; a trigger set in tokens above that (`triggerTokens`, Anthropic's 100,000) gets windows above
 * it and histories with results of up to a quarter of it, so it fires.
 */
export function workload(triggerTokens = 0): { history: fc.Arbitrary<Scenario>; window: fc.Arbitrary<number> } {
  if (triggerTokens <= 20_000) return { history: histories(), window: fc.integer({ min: 300, max: 20_000 }) };
  return { history: histories(triggerTokens / 4), window: fc.integer({ min: Math.round(triggerTokens * 1.3), max: triggerTokens * 2 }) };
}

/** The trigger in tokens `params` set, if any (what workload widens its windows for). */
export const triggerOf = (params: Params): number => Number(params['triggerTokens'] ?? 0);

/** Any value in a parameter's documented range. */
function paramValue(spec: ParamSpec): fc.Arbitrary<ParamValue> {
  switch (spec.kind) {
    case 'fraction':
      return fc.double({ min: 0.05, max: 1, noNaN: true });
    case 'integer': {
      const ints = fc.integer({ min: spec.min, max: Math.min(spec.max ?? spec.min + 20, spec.min + 20) });
      return spec.unlimited ? fc.oneof(ints, fc.constant('unlimited')) : ints;
    }
    case 'boolean':
      return fc.boolean();
    case 'choice':
      return fc.constantFrom(...spec.values);
    case 'text': {
      // Tool-name lists (the generator's tool names), kept to those the spec accepts.
      const lists = [spec.default, '', 'bash', 'read_file,write_file', 'bash, str_replace_editor,search', 'unknown_tool'];
      return fc.constantFrom(...new Set(lists.filter((v) => parseValue(spec, v) !== undefined)));
    }
  }
}

/** A strategy: any parameters in range; a preset: its own settings (what users run). */
export function paramsFor({ strategy, preset }: Selection): fc.Arbitrary<Params> {
  if (preset) return fc.constant({ ...defaultParams(strategy.params), ...preset.params });
  const record = Object.fromEntries(paramEntries(strategy.params).map((p) => [p.name, paramValue(p)]));
  return fc.record(record).filter((p) => strategy.checkParams?.(p) === undefined) as fc.Arbitrary<Params>;
}
