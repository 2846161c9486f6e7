/**
 * The `bench` command table. Commands only parse and normalize flags, then call into the core;
 * they are imported lazily so `bench --help` stays fast.
 */
import path from 'node:path';
import { Command, Help, Option } from 'commander';
import { CtxbenchError } from '../core/errors.js';
import { DEFAULT_ENCODING } from '../core/tokens.js';
import { DEFAULT_REREAD_CAPS } from '../core/run-records.js';
import { IN_THREAD_MESSAGES } from '../runner/matrix.js';
import { DEFAULT_STRATEGY_TIMEOUT_SECONDS } from '../runner/strategy-guard.js';
import { DEFAULT_CACHE_DIR, LIVE_CONCURRENCY, OLLAMA_DEFAULT_HOST, OPENAI_DEFAULT_BASE_URL } from '../llm/defaults.js';
import { MOCK_DEFAULTS } from '../llm/mock.js';
import { RETRY_DEFAULTS } from '../llm/retry.js';
import { DEFAULT_TOLERANCES, NUMERIC_METRICS, toleranceText, unitOf, type NumericMetric } from '../metrics/run-metrics.js';
import { GENERATE_DEFAULTS, GENERATE_LIMITS, type NumericOption } from '../scenarios/generate/options.js';
import { FAULT_DEFAULTS } from '../server/faults.js';
import { DEFAULT_MODELS } from '../server/models.js';
import { FAULT_KINDS } from '../server/types.js';
import { EXIT_CODES, exitCodesHelp } from './exit-codes.js';
import type { ConfigUsed, MatrixCommandContext } from './matrix-command.js';
import { collect, GEN_COUNT, VERIFY_RUNS, VERIFY_STRATEGY_TIMEOUT_SECONDS } from './options.js';
import { CONFIG_FILES, DEFAULT_DB, DEFAULT_REPORT, TOLERANCE_FILES, VERSION } from './paths.js';

/** What a `--json` flag says it prints (the README's "JSON output" lists each document's fields). */
const jsonHelp = (what: string): string => `print one JSON document on stdout instead of the text: ${what} (its fields: README "JSON output")`;

/**
 * An option's help line as commander writes it, less the empty list a repeatable option starts from:
 * "(default: [])" says nothing (the subcommands inherit this).
 */
function describeOption(this: Help, option: Option): string {
  const emptyList = Array.isArray(option.defaultValue) && option.defaultValue.length === 0;
  return Help.prototype.optionDescription.call(this, emptyList ? Object.assign(Object.create(option) as Option, { defaultValue: undefined }) : option);
}

/**
 * A flag or argument error as one line, like every other error: commander's "error: unknown option
 * '--x'" and its suggestion on the next line become `bench: unknown option '--x' (Did you mean --y?)
 * (run with --help for usage)` (the subcommands inherit this).
 */
export function usageError(text: string): string {
  const lines = text.replace(/^error: /, '').split('\n').map((line) => line.trim()).filter((line) => line !== '');
  return `bench: ${[...lines, '(run with --help for usage)'].join(' ')}\n`;
}

/**
 * No flag or argument means anything empty (`--db ''`, `--parquet ''`): refused by name before the
 * command runs, where each would fail later in its own words or not at all (`--parquet ''` wrote into
 * the current folder).
 */
function refuseEmptyValues(command: Command): void {
  for (const option of command.options) {
    const value: unknown = command.getOptionValue(option.attributeName());
    if (value === '' || (Array.isArray(value) && value.includes(''))) throw new CtxbenchError('OPTION_INVALID', `${option.long ?? option.short} '': an empty value`);
  }
  if (!command.args.includes('')) return;
  const names: string[] = [];
  for (let c: Command | null = command; c?.parent; c = c.parent) names.unshift(c.name());
  throw new CtxbenchError('OPTION_INVALID', `${names.join(' ')} '': an empty argument`);
}

/** What `bench run` runs without --strategy or --preset. */
const DEFAULT_STRATEGIES = 'raw,masking';

/** What the entry gives the program: the handling of Ctrl-C and SIGTERM for the commands that run matrices. */
export type ProgramEntry = Pick<MatrixCommandContext, 'interruptible'>;

/** The `bench` program; `entry` is bin.ts's (tests pass a stand-in). */
export function buildProgram(entry: ProgramEntry): Command {
  const program = new Command('bench')
    .description('ctxbench: replay long agent tasks through context-management strategies and compare tokens and success.')
    .version(VERSION)
    .configureOutput({ outputError: (text, write) => write(usageError(text)) })
    .configureHelp({ optionDescription: describeOption })
    .addHelpText('after', `\n${exitCodesHelp()}`)
    .hook('preAction', (_program, command) => refuseEmptyValues(command))
    .exitOverride();

  matrixOptions(
    program
      .command('run')
      .description('Replay scenarios through strategies, store every step in DuckDB, print a summary and write an HTML report.')
      .option('-s, --strategy <names>', `strategy to run, or a strategy file of your own (./mine.ts); repeat or comma-separate; "all" for every strategy and preset (default: ${DEFAULT_STRATEGIES})`, collect)
      .option('--preset <names>', 'a preset (a strategy with a field system\'s settings, see `bench strategies`); repeatable', collect, []),
  )
    .addHelpText(
      'after',
      '\nExamples:\n  bench run --window 32k\n  bench run --window 32k --no-report --json > run.json           (one JSON document: every configuration and run)\n  bench run --strategy masking --param softThreshold=0.6 --scenario my-agent-logs/\n  bench run -s raw -s masking --scenario "logs/**/*.traj.json" --db results.duckdb --no-report\n  bench run -s all --shard 2/4 --db shard-2.duckdb --no-report   (then: bench merge shard-*.duckdb -o all.duckdb)\n  bench run -s all --db results.duckdb --resume                  (after an interruption: only the missing runs)\n  bench run -s all --replay reactive --window 32k --no-report     (the agent re-reads what a strategy took out: extra steps and tokens)\n  bench run -s raw,./my-strategy.ts --window 16k --no-report     (a strategy of your own: a .ts/.mts/.js/.mjs file exporting defineStrategy(...))\n  bench run -s ./my-strategy.ts --param keep=3 --strategy-timeout 10 --window 16k --no-report',
    )
    .action(async (opts, cmd: Command) => {
      const { runCommand } = await import('./commands/run.js');
      await withConfig(opts, cmd, async (merged, config) => {
        const strategy = merged.strategy ?? (merged.preset.length > 0 ? [] : [DEFAULT_STRATEGIES]);
        await runCommand({ ...merged, strategy }, { argv: cmd.parent?.args ?? [], interruptible: entry.interruptible, config });
      });
    });

  matrixOptions(
    program
      .command('sweep')
      .description(
        'Run a strategy (or preset) at every setting of a parameter grid, or several strategies and presets side by side; print the cost-vs-success Pareto front and the recommended default (the report charts it).',
      )
      .option('-s, --strategy <names>', 'the strategy (or strategy file) to sweep (with --grid: exactly one strategy or preset)', collect)
      .option('--preset <names>', 'a preset to sweep from its settings, or several presets to compare; repeatable', collect, [])
      .option('-g, --grid <name=values>', 'a parameter and its values: from:to:step (both ends included) or v1,v2,...; repeat for more parameters (every combination runs)', collect, []),
  )
    .addHelpText(
      'after',
      '\nExamples:\n  bench sweep -s masking --grid softThreshold=0.5:0.9:0.1 --grid carryoverTurns=3,5,10 --window 32k\n  bench sweep --preset jetbrains-masking --grid keep=5,10,20\n  bench sweep --preset jetbrains-masking,anthropic-clear-tool-uses,deepagents,codex,goose --window 32k\n  bench sweep -s ./my-strategy.ts --grid keep=1,2,4 --window 16k   (a strategy file, over its own parameters)',
    )
    .action(async (opts, cmd: Command) => {
      const { sweepCommand } = await import('./commands/sweep.js');
      await withConfig(opts, cmd, (merged, config) => sweepCommand({ ...merged, strategy: merged.strategy ?? [] }, { argv: cmd.parent?.args ?? [], interruptible: entry.interruptible, config }));
    });

  const scenarios = program.command('scenarios').description('List, validate and import scenario files.');
  scenarios
    .command('list')
    .description('List scenarios with their steps, token size, recorded peak usage, model window and outcome.')
    .argument('[paths...]', 'files, folders or globs (default: the bundled scenarios)')
    .option('--json', jsonHelp('every scenario, and the files skipped'))
    .action(async (paths: string[], opts) => (await import('./commands/scenarios.js')).listCommand(paths, opts));
  scenarios
    .command('validate')
    .description('Check scenario files (any known format), one line each; a file of no known format that a folder or glob led to is listed as skipped. Exits 1 if any is invalid or no scenario is found.')
    .argument('<paths...>', 'files, folders or globs')
    .action(async (paths: string[]) => (await import('./commands/scenarios.js')).validateCommand(paths));
  scenarios
    .command('import')
    .description('Convert a recorded trajectory (mini-swe-agent, OpenHands litellm log, ...) to a ctxbench scenario.')
    .argument('<file>', 'the recorded trajectory')
    .option('-o, --output <file>', 'write here (.json or .yaml) instead of stdout')
    .action(async (file: string, opts) => (await import('./commands/scenarios.js')).importCommand(file, opts));
  scenarios
    .command('gen')
    .description('Generate seeded synthetic long agent tasks (realistic tool mix, heavy-tailed outputs, planted facts with probes); same flags, same file.')
    .option('-o, --output <path>', 'file (.json or .yaml), or folder (ends with / or exists; needed for --count > 1 and --suite); default: stdout')
    .option('--steps <n>', `agent steps, ${generated('steps')}`)
    .option('--seed <n>', `seed, ${generated('seed')}`)
    .option('--count <k>', `write K scenarios with seeds seed..seed+K-1 into the -o folder, ${GEN_COUNT.min} to ${GEN_COUNT.max} (default ${GEN_COUNT.default})`)
    .option('--output-tokens <n>', `median read_file/grep/bash output size in tokens, ${generated('outputTokens')}`)
    .option('--heavy-tail <share>', `share of outputs 4-16x the median, a sixth of them 30-100x, ${generated('heavyTailShare')}`)
    .option('--max-output-tokens <n>', `largest output in tokens, ${generated('maxOutputTokens')}`)
    .option('--fact-density <x>', `facts planted per 100 steps, each probed later, ${generated('factDensity')}`)
    .option('--parallel <share>', `share of tool-calling steps with 2-4 parallel calls, ${generated('parallelShare')}`)
    .option('--follow-ups <share>', `share of steps followed by a user follow-up, ${generated('followUpShare')}`)
    .option('--model <name>', `model name written to the scenario (default ${GENERATE_DEFAULTS.model})`)
    .option('--window <tokens>', "model.contextWindow, e.g. 32768 or 32k (default: the model's)")
    .option('--bash-style <style>', 'bash exit-code format: openhands or returncode (default: picked by the seed)')
    .option('--suite', 'write the bundled suite (scenarios/synthetic) into the -o folder')
    .addHelpText('after', '\nExamples:\n  bench scenarios gen --steps 500 --seed 7 -o long.json\n  bench scenarios gen --count 10 --steps 120 --fact-density 10 -o synthetic/\n  bench scenarios gen --suite -o scenarios/synthetic/')
    .action(async (opts) => (await import('./commands/gen.js')).genCommand(opts));

  program
    .command('strategies')
    .description('List strategies with their parameters, defaults and ranges.')
    .option('--json', jsonHelp("every strategy's parameters, every preset's settings"))
    .action(async (opts) => (await import('./commands/strategies.js')).strategiesCommand(opts));

  program
    .command('verify')
    .description(
      `Check a strategy (built-in, preset or ./file.ts) against the project's properties over generated cases: pairing of every request sent, no in-place edits, the context fits, deterministic. Prints each property with pass or FAIL and the shrunk counterexample; exit ${EXIT_CODES.propertyBroken} when one breaks.`,
    )
    .argument('<strategy>', 'a built-in strategy or preset name, or a strategy file (./my-strategy.ts, .mts, .js, .mjs)')
    .option('--runs <n>', 'generated cases per property', String(VERIFY_RUNS))
    .option('--seed <n>', 'seed of the generated cases (default: a new one, printed, to reproduce a failure)')
    .option('-p, --param <name=value>', 'strategy parameter, as bench run takes it; repeatable', collect, [])
    .option('--strategy-timeout <seconds>', "seconds a strategy's hook call may take: a case that waits longer breaks its property (the run ends with status error), and is not shrunk", String(VERIFY_STRATEGY_TIMEOUT_SECONDS))
    .addOption(new Option('--encoding <name>', 'tokenizer for local counts').default(DEFAULT_ENCODING))
    .addHelpText(
      'after',
      `\nExit codes: ${EXIT_CODES.ok} every property holds, ${EXIT_CODES.propertyBroken} a property is broken, ${EXIT_CODES.userError} error (unknown strategy, a file that is no strategy).\n` +
        '\nExamples:\n  bench verify masking --runs 20 --seed 1\n  bench verify window --param keepLast=4 --runs 20',
    )
    .action(async (strategy: string, opts) => (await import('./commands/verify.js')).verifyCommand(strategy, opts));

  program
    .command('cache')
    .description('The record/replay cache of live LLM calls.')
    .command('clear')
    .description('Delete every cached LLM answer.')
    .option('--cache-dir <dir>', 'the cache folder', DEFAULT_CACHE_DIR)
    .action(async (opts) => (await import('./commands/cache.js')).cacheClearCommand(opts));

  program
    .command('report')
    .description('Render a DuckDB results file as a self-contained HTML report (or JSON, CSV, markdown), optionally against a baseline.')
    .option('--db <file>', 'DuckDB results file', DEFAULT_DB)
    .option('-o, --output <file>', `file to write, by extension: .html, .json, .csv or .md (markdown, for a PR comment or job summary); repeatable (default: ${DEFAULT_REPORT})`, collect, [])
    .option('--batch <id>', 'which `bench run` to report: a batch id, or "all" (default: the latest)')
    .option('--baseline <file>', 'compare with an older results database (its latest batch) or a `bench baseline` JSON file: per-metric deltas, regressions red')
    .addHelpText(
      'after',
      '\nExamples:\n  bench report --db results.duckdb -o results.html\n  bench report --baseline main.duckdb -o report.html -o summary.md && cat summary.md >> "$GITHUB_STEP_SUMMARY"\n  bench report --baseline .ci/baseline.json -o report.html -o runs.csv -o report.json',
    )
    .action(async (opts) => (await import('./commands/report.js')).reportCommand(opts));

  program
    .command('merge')
    .description('Merge results databases (e.g. the --shard runs of a CI matrix) into one; refuses a run found in two of them, writes nothing then.')
    .argument('<files...>', 'DuckDB results files written by `bench run`')
    .requiredOption('-o, --output <file>', 'the merged database; an existing one keeps its runs and gets the others added')
    .addHelpText('after', '\nExample:\n  bench merge shard-*.duckdb -o all.duckdb && bench report --db all.duckdb')
    .action(async (files: string[], opts) => (await import('./commands/merge.js')).mergeCommand(files, opts));

  program
    .command('export')
    .description('Write every table of a results database (runs, steps, events, probes, batches, calibration) as one Parquet file each.')
    .requiredOption('--parquet <dir>', 'folder for the <table>.parquet files (created; Parquet files of those names are replaced, other files refused)')
    .option('--db <file>', 'DuckDB results file', DEFAULT_DB)
    .option('--batch <id>', 'which `bench run` to export: a batch id, or "all" (default: the latest)')
    .addHelpText('after', "\nExample:\n  bench export --parquet out/ --batch all && duckdb -c \"SELECT strategy, avg(input_tokens) FROM 'out/runs.parquet' GROUP BY 1\"")
    .action(async (opts) => (await import('./commands/export.js')).exportCommand(opts));

  program
    .command('baseline')
    .description('Write the metrics of every run of a batch (per strategy|scenario) to a JSON baseline for `bench check`.')
    .requiredOption('-o, --output <file>', 'baseline JSON to write (commit it)')
    .option('--db <file>', 'DuckDB results file', DEFAULT_DB)
    .option('--batch <id>', 'which `bench run` to record (default: the latest)')
    .addHelpText('after', '\nExample:\n  bench run --no-report && bench baseline -o ctxbench-baseline.json')
    .action(async (opts) => (await import('./commands/gate.js')).baselineCommand(opts));

  program
    .command('check')
    .description(
      `Compare a batch with a baseline per run and metric, like with like; exit ${EXIT_CODES.ok} if nothing regressed, ${EXIT_CODES.regressions} on regressions, ${EXIT_CODES.incomparable} when baseline runs are missing or configured otherwise, ${EXIT_CODES.userError} on errors.`,
    )
    .requiredOption('--baseline <file>', 'baseline JSON written by `bench baseline`')
    .option('--db <file>', 'DuckDB results file', DEFAULT_DB)
    .option('--batch <id>', 'which `bench run` to check (default: the latest)')
    .option(
      '--tolerance <metric=abs:X|rel:Y>',
      `how much worse a metric may get, repeatable; defaults: ${defaultTolerances()}. A status change from completed is always a regression`,
      collect,
      [],
    )
    .option('--tolerances <file>', `a tolerance file: per metric defaults and per-strategy overrides; --tolerance flags win over it (default: ${TOLERANCE_FILES.join(', ')} beside the baseline)`)
    .option('--allow-missing', 'pass although baseline runs are missing from the batch (they are listed; at least one must be there)')
    .option('--accept-changes', 'pass although runs are configured otherwise than in the baseline (they are named, not compared); then update the baseline')
    .option('--json-out <file>', "write per-strategy totals in github-action-benchmark's format (tool: customSmallerIsBetter)")
    .option('--markdown-out <file>', 'write a markdown summary (for a PR comment or $GITHUB_STEP_SUMMARY)')
    .option('--json', jsonHelp('the verdict, the findings, what was not compared; the exit code is the same, and in it'))
    .addHelpText(
      'after',
      `\nExit codes: ${EXIT_CODES.ok} no regression, ${EXIT_CODES.regressions} regressions, ${EXIT_CODES.incomparable} not like with like (baseline runs missing, configurations changed), ${EXIT_CODES.userError} error (e.g. a missing or malformed baseline).\n` +
        '\nExamples:\n  bench check --baseline ctxbench-baseline.json\n  bench check --baseline b.json --tolerance inputTokens=rel:5% --tolerance peakContextPct=abs:0.05 --markdown-out "$GITHUB_STEP_SUMMARY"',
    )
    .action(async (opts) => (await import('./commands/gate.js')).checkCommand(opts));

  program
    .command('serve-mock')
    .description('Run the local model server (Ollama /api/chat, /api/tags, /api/show and OpenAI /v1/chat/completions) with deterministic answers and optional faults, until Ctrl-C.')
    .option('--port <n>', 'port on 127.0.0.1 (0: any free port)', '0')
    .option(
      '--model <name=ctx>',
      `a model and its context length, e.g. qwen2.5-coder:7b=32k; repeatable (default: ${DEFAULT_MODELS.map((m) => `${m.name}=${m.contextLength}`).join(', ')})`,
      collect,
      [],
    )
    .option(
      '--fault <kind[:times]>',
      `inject a fault into the next chat requests (times: a number or inf, default ${FAULT_DEFAULTS.times}): ${FAULT_KINDS.join(', ')}; repeatable`,
      collect,
      [],
    )
    .option('--retry-after <seconds>', 'Retry-After of http429 faults', String(FAULT_DEFAULTS.retryAfterSeconds))
    .option('--delay <ms>', 'how long slow-first-byte faults hold the response headers back', String(FAULT_DEFAULTS.delayMs))
    .addOption(new Option('--encoding <name>', 'tokenizer of the reported usage').default(DEFAULT_ENCODING))
    .addHelpText('after', '\nExamples:\n  bench serve-mock --model qwen2.5-coder:7b=32k\n  bench serve-mock --port 11435 --fault http429:2 --fault cut-stream')
    .action(async (opts) => (await import('./commands/serve-mock.js')).serveMockCommand(opts));

  return program;
}

/**
 * `bench check`'s default tolerances, the metrics that share one listed together: relative ones first,
 * then absolute ones, those in fractions of the window or of the references last (so the note is theirs).
 */
function defaultTolerances(): string {
  const rank = (m: NumericMetric): number => (DEFAULT_TOLERANCES[m].kind === 'rel' ? 0 : unitOf(m) === 'fraction' ? 2 : 1);
  const groups = new Map<string, NumericMetric[]>();
  for (const metric of [...NUMERIC_METRICS].sort((a, b) => rank(a) - rank(b))) {
    const tolerance = toleranceText(DEFAULT_TOLERANCES[metric]);
    const key = `${rank(metric)}:${tolerance}`;
    groups.set(key, [...(groups.get(key) ?? []), metric]);
  }
  const listed = [...groups.values()].map((metrics) => `${metrics.join(', ')} ${toleranceText(DEFAULT_TOLERANCES[metrics[0]!])}`);
  return `${listed.join('; ')}${NUMERIC_METRICS.some((m) => rank(m) === 2) ? ' (fractions)' : ''}`;
}

/** The flags of every command that replays a matrix (`bench run`, `bench sweep`). */
function matrixOptions(command: Command): Command {
  return command
    .option('--scenario <path>', 'scenario file, folder (walked: files of no known format skipped) or glob ("logs/**/*.{json,yaml}"); repeatable (default: the bundled scenarios)', collect)
    .option('-w, --window <tokens>', "override every scenario's context window, e.g. 32768 or 32k (k = 1024)")
    .option('-p, --param <name=value>', 'strategy parameter, e.g. softThreshold=0.6 or masking.softThreshold=0.6; repeatable', collect, [])
    .option('--db <file>', 'DuckDB results file', DEFAULT_DB)
    .option('--report <file>', 'HTML report to write', DEFAULT_REPORT)
    .option('--no-report', 'do not write the HTML report')
    .addOption(new Option('--encoding <name>', 'tokenizer for local counts').default(DEFAULT_ENCODING))
    .option('-m, --model <provider>', 'LLM backend: mock, ollama:chat:<model> or openai:chat:<model>', 'mock')
    .option('--host <url>', `Ollama server (default: OLLAMA_HOST, then ${OLLAMA_DEFAULT_HOST})`)
    .option('--base-url <url>', `OpenAI-compatible base URL (default: OPENAI_BASE_URL, then ${OPENAI_DEFAULT_BASE_URL}); key from OPENAI_API_KEY`)
    .option('--live <mode>', 'live backends: "measure" asks one output token per step (the recorded turn is replayed anyway), "full" lets the model answer', 'measure')
    .option('--probes <how>', 'how probes are graded: "ask" puts each probe question to the model and passes it when the answer holds the fact; "context" checks the fact is in the context sent; "auto": ask on live backends, context with the mock', 'auto')
    .option('--replay <mode>', '"forced": every recorded turn is replayed whatever the context lost (teacher forcing); "reactive": before a turn, the agent re-reads what it uses that the context lost (an offloaded file, else the recorded tool call again), as extra billed steps', 'forced')
    .option('--max-rereads-per-turn <n>', 'reactive replay: re-reads before one recorded turn, at most', String(DEFAULT_REREAD_CAPS.perTurn))
    .option('--max-rereads-per-run <n>', 'reactive replay: re-reads in one run, at most', String(DEFAULT_REREAD_CAPS.perRun))
    .option('--no-cache', 'live backends: send every request, without the record/replay cache')
    .option('--cache-dir <dir>', `record/replay cache folder (default: ${DEFAULT_CACHE_DIR})`)
    .option('--timeout <seconds>', `live backends: per-request timeout (default ${RETRY_DEFAULTS.timeoutMs / 1000})`)
    .option('--retries <n>', `live backends: retries on connection errors, 429 and 5xx (default ${RETRY_DEFAULTS.attempts - 1})`)
    .option(
      '-j, --concurrency <n>',
      `runs at once: worker threads for the mock (default: one per core; without -j, a matrix of up to ${IN_THREAD_MESSAGES.toLocaleString('en-US')} messages replayed and no strategy file runs in the main thread), requests in flight for live backends (default ${LIVE_CONCURRENCY.ollama}; ${LIVE_CONCURRENCY.openai} for openai:chat:)`,
    )
    .option('--mock-recall <fraction>', 'mock LLM: share of facts a summary or checkpoint keeps', String(MOCK_DEFAULTS.recall))
    .option('--mock-summary-tokens <n>', 'mock LLM: longest summary or checkpoint, in tokens', String(MOCK_DEFAULTS.summaryTokens))
    .option('--mock-seed <n>', 'mock LLM: seed of the recall draw', String(MOCK_DEFAULTS.seed))
    .option('--no-calibrate', 'count tokens with the tokenizer as is, without the per-model correction fitted on recorded provider usage')
    .option('--calibration <file.json>', 'apply the token calibrations of this file (see --save-calibration) instead of fitting them; models it lacks are counted uncalibrated')
    .option('--save-calibration <file.json>', 'write the token calibration the runs used as a calibration file (for --calibration)')
    .option('--price-model <name>', "price every run at this model's list prices (default: the mock: each scenario's model; live: the backend's model, an Ollama one local at $0)")
    .option('--shard <i/n>', 'run only shard i of n of the matrix (1-based; the same split on every machine); merge the shards\' --db files with `bench merge`')
    .option('--batch-id <id>', 'store the runs under this batch id (default: a new one per run; for --shard, one derived from the matrix, the same in every shard)')
    .option('--resume', 'after an interruption: continue the latest batch of the same matrix in --db, running only the runs it lacks (and redoing those a backend error ended); starts a new batch when there is none')
    .option('--strategy-timeout <seconds>', `seconds a strategy's hook call may take before its run ends with status error (default ${DEFAULT_STRATEGY_TIMEOUT_SECONDS}); a synchronous endless loop is stopped only on worker threads (the mock)`)
    .option('--config <file>', `settings file (default: ${configFiles()} in this folder); flags win over it`)
    .option('--json', jsonHelp("the summary's numbers, every run, where the results are, the exit code; progress, warnings and calibration lines go to stderr"));
}

/** A `scenarios gen` option's range and default: "20 to 2000 (default 200)". */
function generated(option: Exclude<NumericOption, 'contextWindow'>): string {
  const { min, max } = GENERATE_LIMITS[option];
  return `${min} to ${max} (default ${GENERATE_DEFAULTS[option]})`;
}

/** "ctxbench.config.yaml, .yml or .json": the config files looked for, in order. */
function configFiles(): string {
  const [first, ...others] = CONFIG_FILES;
  return `${first}, ${others.map((file) => path.extname(file)).join(' or ')}`;
}

/**
 * Runs `action` with the command's flags over its config file's settings (a flag given on the command
 * line wins); an error about a value taken from the file names the file and its setting.
 */
async function withConfig<T extends { config?: string }>(opts: T, cmd: Command, action: (merged: T, config: ConfigUsed | undefined) => Promise<void>): Promise<void> {
  const { configError, loadConfig } = await import('./config.js');
  const config = await loadConfig(cmd, opts.config);
  const merged: Record<string, unknown> = { ...opts };
  const taken: string[] = [];
  for (const [key, value] of Object.entries(config?.values ?? {})) {
    if (cmd.getOptionValueSource(key) === 'cli') continue;
    merged[key] = value;
    taken.push(key);
  }
  try {
    await action(merged as T, config && { file: config.file, settings: taken });
  } catch (error) {
    if (config === undefined) throw error;
    const fromFile = cmd.options.filter((o) => Object.hasOwn(config.values, o.attributeName()) && cmd.getOptionValueSource(o.attributeName()) !== 'cli');
    throw configError(error, config.file, fromFile);
  }
}
