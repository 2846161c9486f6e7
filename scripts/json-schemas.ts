/**
 * The JSON Schema of each `--json` document (schemas/<kind>.schema.json) and the README's table of its
 * fields, both generated from the zod schemas in src/cli/json/, so neither can drift from what the
 * commands print (test/json-schemas.test.ts fails when one is out of date).
 *
 * Run: npx tsx scripts/json-schemas.ts   (writes the schema files and the README's tables)
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { CHECK_DOCUMENT } from '../src/cli/json/check.js';
import { RUN_DOCUMENT } from '../src/cli/json/run.js';
import { SCENARIOS_DOCUMENT } from '../src/cli/json/scenarios.js';
import { STRATEGIES_DOCUMENT } from '../src/cli/json/strategies.js';

export const ROOT = path.resolve(import.meta.dirname, '..');

/** Each document's schema file, relative to the project root. */
export const DOCUMENTS: readonly { readonly file: string; readonly schema: z.ZodType }[] = [
  { file: 'schemas/run.schema.json', schema: RUN_DOCUMENT },
  { file: 'schemas/scenarios.schema.json', schema: SCENARIOS_DOCUMENT },
  { file: 'schemas/strategies.schema.json', schema: STRATEGIES_DOCUMENT },
  { file: 'schemas/check.schema.json', schema: CHECK_DOCUMENT },
];

type JsonSchema = { [key: string]: unknown };

/**
 * The schema as a JSON Schema (draft 2020-12). Objects admit fields they do not list, so a script that
 * validates against it keeps passing when a later ctxbench adds a field within the same format (the
 * tests hold the output to exactly these fields); JSON's integers need no bound of JavaScript's.
 */
export function jsonSchemaOf(schema: z.ZodType): JsonSchema {
  return z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    override: ({ jsonSchema }) => {
      if (jsonSchema.additionalProperties === false) delete jsonSchema.additionalProperties;
      if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
      if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
    },
  }) as JsonSchema;
}

export const schemaText = (schema: z.ZodType): string => `${JSON.stringify(jsonSchemaOf(schema), null, 2)}\n`;

/** The schemas a field may be (anyOf), and whether null is one of them. */
function alternatives(schema: JsonSchema): { readonly options: JsonSchema[]; readonly nullable: boolean } {
  const all = Array.isArray(schema.anyOf) ? (schema.anyOf as JsonSchema[]) : [schema];
  const types = (s: JsonSchema): unknown[] => (Array.isArray(s.type) ? s.type : [s.type]);
  const options = all.filter((s) => s.type !== 'null').map((s) => (Array.isArray(s.type) ? { ...s, type: s.type.filter((t) => t !== 'null') } : s));
  return { options, nullable: all.some((s) => types(s).includes('null')) };
}

const quoted = (value: unknown): string => `\`${JSON.stringify(value)}\``;

/** "a", "a or b", "a, b or c". */
const orList = (items: readonly string[]): string => (items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`);

/** What a value may be, each a few words: `"run"`, integer, array of strings, object (name: number, boolean or string). */
function typeTexts(schema: JsonSchema): string[] {
  if (schema.const !== undefined) return [quoted(schema.const)];
  if (Array.isArray(schema.enum)) return (schema.enum as unknown[]).map(quoted);
  if (Array.isArray(schema.type)) return schema.type as string[];
  if (schema.type === 'array') {
    const items = schema.items as JsonSchema;
    return [items.type === 'object' ? 'array of objects' : `array of ${orList(typeTexts(items))}s`];
  }
  if (schema.type === 'object' && schema.properties === undefined) return [`object (name: ${orList(typeTexts(schema.additionalProperties as JsonSchema))})`];
  return [String(schema.type)];
}

/** One row per field, depth first: `runs[].status` for a field of the objects of an array. */
function fieldRows(schema: JsonSchema, prefix: string): string[] {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  return Object.entries(properties).flatMap(([name, field]) => {
    const { options, nullable } = alternatives(field);
    const type = orList([...options.flatMap(typeTexts), ...(nullable ? ['null'] : [])]);
    const row = `| \`${prefix}${name}\` | ${type.replace(/\|/g, '\\|')} | ${String(field.description ?? '').replace(/\|/g, '\\|')} |`;
    const [only] = options;
    if (options.length !== 1 || only === undefined) return [row];
    if (only.type === 'object' && only.properties !== undefined) return [row, ...fieldRows(only, `${prefix}${name}.`)];
    if (only.type === 'array' && (only.items as JsonSchema).properties !== undefined) return [row, ...fieldRows(only.items as JsonSchema, `${prefix}${name}[].`)];
    return [row];
  });
}

/** The README's table of a document's fields. */
export function fieldTable(schema: z.ZodType): string {
  return ['| field | type | meaning |', '| --- | --- | --- |', ...fieldRows(jsonSchemaOf(schema), '')].join('\n');
}

/** The comment before a document's field table in the README. */
export const tableMarker = (file: string): string => `<!-- fields of: ${file} (generated: npx tsx scripts/json-schemas.ts) -->`;

/** `readme` with the table after each document's marker (the `|` lines right below it) replaced by the generated one; throws when a marker is missing. */
export function withFieldTables(readme: string): string {
  const lines = readme.split('\n');
  for (const { file, schema } of DOCUMENTS) {
    const marker = tableMarker(file);
    const at = lines.indexOf(marker);
    if (at < 0) throw new Error(`README.md has no "${marker}" line before the table of ${file}'s fields`);
    let end = at + 1;
    while (lines[end]?.startsWith('|')) end += 1;
    lines.splice(at + 1, end - at - 1, ...fieldTable(schema).split('\n'));
  }
  return lines.join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const { file, schema } of DOCUMENTS) {
    writeFileSync(path.join(ROOT, file), schemaText(schema));
    console.log(`wrote ${file}`);
  }
  const readme = path.join(ROOT, 'README.md');
  writeFileSync(readme, withFieldTables(readFileSync(readme, 'utf8')));
  console.log('wrote the field tables of README.md');
}
