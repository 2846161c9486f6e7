/**
 * The `--json` documents are documented from their schemas (src/cli/json/): the JSON Schema files in
 * schemas/ and the README's field tables are what scripts/json-schemas.ts generates from them, every
 * field says what it means, and the package ships the schema files.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DOCUMENTS, fieldTable, jsonSchemaOf, ROOT, schemaText, withFieldTables } from '../scripts/json-schemas.js';

const REGENERATE = 'out of date: run npx tsx scripts/json-schemas.ts';

describe('the JSON documents\' schema files and README tables', () => {
  it.each(DOCUMENTS.map((d) => [d.file, d] as const))('%s is what its schema generates', (file, { schema }) => {
    expect(readFileSync(path.join(ROOT, file), 'utf8'), `${file} ${REGENERATE}`).toBe(schemaText(schema));
  });

  it('README.md lists every field of every document, as the schemas say', () => {
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    expect(withFieldTables(readme) === readme, `README.md's field tables are ${REGENERATE}`).toBe(true);
  });

  it.each(DOCUMENTS.map((d) => [d.file, d] as const))('%s: every field says what it means', (_file, { schema }) => {
    const undocumented = fieldTable(schema).split('\n').slice(2).filter((row) => row.endsWith('|  |'));
    expect(undocumented).toEqual([]);
  });

  it('each document opens with kind, format and ctxbench; its schema admits fields a later version adds', () => {
    for (const { schema } of DOCUMENTS) {
      const json = jsonSchemaOf(schema) as { properties: Record<string, unknown>; required: string[]; additionalProperties?: unknown };
      expect(Object.keys(json.properties).slice(0, 3)).toEqual(['kind', 'format', 'ctxbench']);
      expect(json.required).toEqual(Object.keys(json.properties));
      expect(json.additionalProperties).toBeUndefined();
      expect(JSON.stringify(json)).not.toContain('"additionalProperties":false');
    }
  });

  it('the package ships the schema files', () => {
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { files: string[] };
    expect(pkg.files).toContain('schemas');
    expect(DOCUMENTS.every((d) => d.file.startsWith('schemas/'))).toBe(true);
  });
});
