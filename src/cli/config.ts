/**
 * A project config file for `bench run` and `bench sweep` (promptfoo style): `ctxbench.config.yaml`
 * (or .yml, .json) in the current directory, or `--config FILE`. Its keys are the command's long flags
 * in camelCase, read from the command itself so the two cannot drift: `window: 32k`, `strategy: [raw,
 * masking]`, `param: { masking.softThreshold: 0.6 }`, and a negated flag either way (`noReport: true`
 * or `report: false`). A flag given on the command line wins over the file, the file over the defaults.
 * A strategy file it names (`strategy: [raw, ./mine.ts]`) is found from the config file's folder.
 */
import { access } from 'node:fs/promises';
import path from 'node:path';
import type { Command, Option } from 'commander';
import { z } from 'zod';
import { CtxbenchError, isCtxbenchError } from '../core/errors.js';
import { readStructured } from '../scenarios/load.js';
import { isStrategyPath } from '../runner/strategy-file.js';
import { collect } from './options.js';
import { CONFIG_FILES } from './paths.js';

/** The flag that names the config file is not a setting of it. */
const CONFIG_FLAG = '--config';

const scalar = z.union([z.string(), z.number()]).transform(String);
const list = z.union([scalar, z.array(scalar)]).transform((v) => (Array.isArray(v) ? v : [v]));
/** A `name=value` flag (`--param`, `--grid`) also takes a mapping: `{ masking.softThreshold: 0.6 }`. */
const assignments = z.union([list, z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]))]).transform((v) =>
  Array.isArray(v) ? v : Object.entries(v).map(([k, value]) => `${k}=${String(value)}`),
);

/** One setting: the flags that share an attribute (`--report <file>` and `--no-report` set `report`). */
interface Setting {
  readonly attribute: string;
  readonly schema: z.ZodType;
  /** `noReport` for `--no-report`: true turns the flag off. */
  readonly negatedKey?: string;
}

/** The settings a config file may hold for `command`, by key (`noReport` next to `report`). */
export function configKeys(command: Command): string[] {
  return settingsOf(command).flatMap((s) => [s.attribute, ...(s.negatedKey ? [s.negatedKey] : [])]);
}

/** A config file's settings for `command`, as the command's option values; `file` names the errors. */
export function parseConfig(command: Command, file: string, data: unknown): Record<string, unknown> {
  const settings = settingsOf(command);
  const shape: Record<string, z.ZodType> = {};
  for (const s of settings) {
    shape[s.attribute] = s.schema;
    if (s.negatedKey) shape[s.negatedKey] = z.boolean();
  }
  const parsed = z.object(shape).partial().strict().safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const problem =
      issue.code === 'unrecognized_keys'
        ? `unknown setting ${issue.keys.join(', ')} (known: ${configKeys(command).join(', ')})`
        : `${issue.path.join('.') || '(top level)'}: ${issue.message}`;
    throw new CtxbenchError('OPTION_INVALID', `${file}: ${problem}`);
  }
  const values: Record<string, unknown> = {};
  for (const s of settings) {
    const value = parsed.data[s.attribute];
    const negated = s.negatedKey === undefined ? undefined : parsed.data[s.negatedKey];
    if (value !== undefined && negated !== undefined) throw new CtxbenchError('OPTION_INVALID', `${file}: ${s.attribute} and ${s.negatedKey}: give one of them`);
    // noX: false asks for the flag's default, which for a negatable flag is on.
    if (negated === true) values[s.attribute] = false;
    else if (value !== undefined) values[s.attribute] = value;
  }
  return values;
}

/** The config file's settings for `command`, or undefined when there is none. */
export async function loadConfig(command: Command, explicit?: string): Promise<{ readonly file: string; readonly values: Record<string, unknown> } | undefined> {
  const file = explicit ?? (await firstExisting(CONFIG_FILES));
  if (file === undefined) return undefined;
  const values = parseConfig(command, file, await readStructured(file));
  if (Array.isArray(values.strategy)) values.strategy = strategiesFrom(values.strategy as string[], path.dirname(file));
  return { file, values };
}

/**
 * `error` as the config file's when it is about a value the command took from `file` (the flags'
 * parsers name the flag: `--window abc: expected ...`): `ctxbench.config.yaml: window abc: expected
 * ...`, so the user looks in the file, not for a flag they never typed.
 */
export function configError(error: unknown, file: string, fromFile: readonly Option[]): unknown {
  if (!isCtxbenchError(error)) return error;
  for (const option of fromFile) {
    for (const flag of [option.long, option.short]) {
      if (flag !== undefined && (error.message.startsWith(`${flag} `) || error.message.startsWith(`${flag}:`))) {
        return new CtxbenchError(error.code, `${file}: ${option.attributeName()}${error.message.slice(flag.length)}`);
      }
    }
  }
  return error;
}

/** The config file's strategies, a strategy file's path made relative to here from the config file's `folder`. */
function strategiesFrom(values: readonly string[], folder: string): string[] {
  return values
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .map((v) => (isStrategyPath(v) ? `./${path.relative(process.cwd(), path.resolve(folder, v)).split(path.sep).join('/')}` : v));
}

/** Every option of `command` but --config, grouped by the attribute it sets, in help order. */
function settingsOf(command: Command): Setting[] {
  const byAttribute = new Map<string, Option[]>();
  for (const option of command.options) {
    if (option.long === CONFIG_FLAG) continue;
    byAttribute.set(option.attributeName(), [...(byAttribute.get(option.attributeName()) ?? []), option]);
  }
  return [...byAttribute].map(([attribute, options]) => {
    const valued = options.find((o) => o.required || o.optional);
    const negated = options.find((o) => o.negate);
    const value = valued === undefined ? z.boolean() : valueSchema(valued);
    return {
      attribute,
      schema: valued !== undefined && negated !== undefined ? z.union([value, z.literal(false)]) : value,
      ...(negated ? { negatedKey: camelCase(negated.name()) } : {}),
    };
  });
}

/** A repeatable flag takes one value or a list, a `name=value` one a mapping too; others one value. */
function valueSchema(option: Option): z.ZodType {
  if (option.parseArg !== collect) return scalar;
  return /<[^>]*=[^>]*>/.test(option.flags) ? assignments : list;
}

/** "no-report" -> "noReport". */
const camelCase = (name: string): string => name.replace(/-(\w)/g, (_, c: string) => c.toUpperCase());

async function firstExisting(files: readonly string[]): Promise<string | undefined> {
  for (const file of files) {
    if (await access(file).then(() => true, () => false)) return file;
  }
  return undefined;
}
