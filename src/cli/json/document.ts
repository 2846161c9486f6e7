/**
 * What every `--json` document shares: the fields it opens with (which document, the version of its
 * shape, the ctxbench that wrote it) and how it is printed: one JSON document on stdout, nothing else
 * there. Each document's shape is a zod schema beside its builder; schemas/<kind>.schema.json and the
 * README's field tables are generated from those (scripts/json-schemas.ts).
 */
import { z } from 'zod';

/** The fields every document opens with; `kind` names the document, as its schema file does. */
export function documentHeader<const K extends readonly [string, ...string[]], const F extends number>(kinds: K, format: F) {
  return {
    kind: z.enum(kinds).describe(`which document this is: ${kinds.join(' or ')}`),
    format: z
      .literal(format)
      .describe('the version of this shape; it goes up when a field changes meaning or goes away (a field may be added without it)'),
    ctxbench: z.string().describe('the ctxbench version that wrote it'),
  };
}

/** A whole number (JSON has no integer type: the schema says it). */
export const count = (): z.ZodNumber => z.number().int().min(0);

/** Prints `document` as the command's whole stdout: pretty JSON, one trailing newline. */
export function printDocument(document: object): void {
  process.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
}
