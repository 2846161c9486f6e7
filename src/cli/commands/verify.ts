/**
 * `bench verify <strategy>`: checks a built-in strategy, a preset or a strategy file against the
 * project's properties (src/verify) and prints each with pass or FAIL; a failure with its shrunk
 * counterexample (the rule broken, the step, the messages of that request) and the command that
 * reproduces it. Ends with EXIT_CODES.propertyBroken when any property fails.
 */
import { CtxbenchError } from '../../core/errors.js';
import { parseAssignment, resolveParams } from '../../core/params.js';
import type { Message } from '../../core/messages.js';
import { isStrategyPath, loadStrategyFile, type StrategyFile } from '../../runner/strategy-file.js';
import { PRESETS } from '../../strategies/presets.js';
import { PRESET_NAMES, select, STRATEGIES, STRATEGY_NAMES, type Selection } from '../../strategies/index.js';
import type { PropertyOutcome } from '../../verify/verify.js';
import { verifyOnThread } from '../../verify/verify-thread.js';
import { EXIT_CODES, ExitWith } from '../exit-codes.js';
import { parseEncoding, parseWhole, VERIFY_STRATEGY_TIMEOUT_SECONDS } from '../options.js';
import { printable } from '../printable.js';
import { paramOwner } from './run.js';

export interface VerifyCommandOptions {
  readonly runs: string;
  readonly seed?: string | undefined;
  readonly param: readonly string[];
  readonly encoding: string;
  readonly strategyTimeout: string;
}

const MAX_SEED = 2 ** 31 - 1;
/** Characters of a message's content shown in a counterexample. */
const CLIP = 60;

/** A built-in strategy or preset by name, or a strategy file (with the file, for the worker thread to load again). */
async function selectionOf(given: string): Promise<Selection & { readonly file?: StrategyFile }> {
  if (isStrategyPath(given)) {
    const loaded = await loadStrategyFile(given, undefined, `verify ${given}`);
    return { name: given, strategy: loaded.strategy, file: loaded.file };
  }
  if (PRESETS[given]) return select([], [given])[0]!;
  if (STRATEGIES[given]) return select([given])[0]!;
  throw new CtxbenchError('STRATEGY_UNKNOWN', `verify ${given}: unknown strategy (strategies: ${STRATEGY_NAMES.join(', ')}; presets: ${PRESET_NAMES.join(', ')}; or a strategy file, ./my-strategy.ts)`);
}

export async function verifyCommand(given: string, options: VerifyCommandOptions): Promise<void> {
  const runs = parseWhole('--runs', options.runs, { min: 1, max: 100_000 });
  // A seed of the moment unless given: printed, so a failure can be run again.
  const seed = options.seed === undefined ? Math.floor(Math.random() * MAX_SEED) : parseWhole('--seed', options.seed, { min: 0, max: MAX_SEED });
  const strategyTimeout = parseWhole('--strategy-timeout', options.strategyTimeout, { min: 1, max: 86_400 });
  const encoding = parseEncoding(options.encoding);
  const selection = await selectionOf(given);
  const params = resolveParams([paramOwner(selection)], options.param.map(parseAssignment)).get(selection.name)!;
  const setting = Object.entries(params).map(([k, v]) => `${k}=${v}`).join(' ');

  process.stdout.write(`bench verify ${given}: ${runs} generated cases per property, seed ${seed}${setting ? `\nparameters: ${setting}` : ''}\n`);
  // On a worker thread, so that a hook in a synchronous endless loop is stopped too (verify-thread.ts).
  const outcomes = await verifyOnThread(
    { strategy: selection.strategy.name, file: selection.file, params, runs, seed, strategyTimeout, encoding },
    (property, index, total) => process.stderr.write(`[${index + 1}/${total}] ${property.name}\n`),
  );
  const reproduce = ['bench verify', given, `--seed ${seed}`, `--runs ${runs}`, ...options.param.map((p) => `--param ${p}`), ...(strategyTimeout === VERIFY_STRATEGY_TIMEOUT_SECONDS ? [] : [`--strategy-timeout ${strategyTimeout}`])].join(' ');
  process.stdout.write(outcomes.map((o) => outcomeText(o, reproduce)).join(''));
  const failed = outcomes.filter((o) => o.failure).length;
  const unchecked = outcomes.filter((o) => o.notChecked).length;
  process.stdout.write(failed === 0 ? `all ${outcomes.length} properties hold\n` : `${failed} of ${outcomes.length} properties broken${unchecked > 0 ? ` (${unchecked} not checked)` : ''}\n`);
  if (failed > 0) throw new ExitWith(EXIT_CODES.propertyBroken);
}

/** One property's lines: pass, or FAIL with the shrunk counterexample. */
export function outcomeText({ property, cases, failure, notChecked }: PropertyOutcome, reproduce: string): string {
  if (notChecked) return `skip  ${property.name}: ${property.title} (not checked: the thread was stopped)\n`;
  if (!failure) return `pass  ${property.name}: ${property.title} (${cases} cases)\n`;
  const { broken, case: c, shrinks } = failure;
  const lines = [`FAIL  ${property.name}: ${property.title}`, `  rule broken: ${broken.rule}`];
  if (c) {
    const agentSteps = c.scenario.messages.filter((m) => m.role === 'assistant').length;
    lines.push(`  counterexample (case ${cases} failed, shrunk ${shrinks} times): ${c.scenario.messages.length} messages, ${agentSteps} agent steps, window ${c.window}, ${c.reactive ? 'reactive' : 'forced'} replay`);
  } else lines.push('  counterexample: not known (the thread was stopped in the middle of a case)');
  if (broken.messages) {
    const at = broken.step === undefined ? '' : ` at step ${broken.step}`;
    const what = broken.purpose?.startsWith('given to') ? `messages ${broken.purpose}${at}` : `${broken.purpose ?? 'agent'} request${at}`;
    lines.push(`  ${what}, ${broken.messages.length} messages:`, ...broken.messages.map((m, i) => `    ${messageLine(m, i)}`));
  }
  lines.push(`  reproduce: ${reproduce}`);
  return `${lines.map(printable).join('\n')}\n`;
}

/** `[2] assistant m0002 calls call_0_0,call_0_1 "content..."`: one message of a counterexample. */
function messageLine(m: Message, index: number): string {
  const ids = m.role === 'assistant' && m.toolCalls.length > 0 ? ` calls ${m.toolCalls.map((c) => c.id).join(',')}` : m.role === 'tool' ? ` answers ${m.toolCallId}` : '';
  const content = m.content.length > CLIP ? `${m.content.slice(0, CLIP)}...` : m.content;
  return `[${index}] ${m.role.padEnd(9)} ${m.id}${ids} ${JSON.stringify(content)}`;
}
