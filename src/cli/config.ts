/**
 * A project config file for `bench run` (promptfoo style): `ctxbench.config.yaml` (or .yml, .json) in
 * the current directory, or `--config FILE`. Its keys are the long flags in camelCase; a flag given on
 * the command line wins over the file, the file wins over the built-in defaults.
 */
import { access } from 'node:fs/promises';
import { z } from 'zod';
import { CtxbenchError } from '../core/errors.js';
import { readStructured } from '../scenarios/load.js';
import { CONFIG_FILES } from './paths.js';

const list = z.union([z.string(), z.array(z.string())]).transform((v) => (Array.isArray(v) ? v : [v]));
const text = z.union([z.string(), z.number()]).transform(String);

const configSchema = z
  .object({
    strategy: list,
    preset: list,
    scenario: list,
    window: text,
    param: z.union([list, z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]))]).transform((v) =>
      Array.isArray(v) ? v : Object.entries(v).map(([k, value]) => `${k}=${String(value)}`),
    ),
    db: z.string(),
    report: z.union([z.string(), z.literal(false)]),
    encoding: z.string(),
    model: z.string(),
    host: z.string(),
    baseUrl: z.string(),
    live: z.string(),
    probes: z.string(),
    cache: z.boolean(),
    cacheDir: z.string(),
    timeout: text,
    retries: text,
    concurrency: text,
    mockRecall: text,
    mockSummaryTokens: text,
    mockSeed: text,
    priceModel: z.string(),
    calibrate: z.boolean(),
    shard: z.string(),
    batchId: z.string(),
    resume: z.boolean(),
  })
  .partial()
  .strict();

export type RunConfigFile = z.output<typeof configSchema>;

/** The settings a config file may hold (a test keeps them in step with `bench run`'s flags). */
export const CONFIG_KEYS: readonly string[] = Object.keys(configSchema.shape);

/** The config file's settings, or undefined when there is none. */
export async function loadRunConfig(explicit?: string): Promise<RunConfigFile | undefined> {
  const file = explicit ?? (await firstExisting(CONFIG_FILES));
  if (file === undefined) return undefined;
  const parsed = configSchema.safeParse(await readStructured(file));
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const key = issue.path.join('.') || '(top level)';
    const known = CONFIG_KEYS.join(', ');
    const problem = issue.code === 'unrecognized_keys' ? `unknown setting ${issue.keys.join(', ')} (known: ${known})` : `${key}: ${issue.message}`;
    throw new CtxbenchError('OPTION_INVALID', `${file}: ${problem}`);
  }
  return parsed.data;
}

async function firstExisting(files: readonly string[]): Promise<string | undefined> {
  for (const file of files) {
    if (await access(file).then(() => true, () => false)) return file;
  }
  return undefined;
}
