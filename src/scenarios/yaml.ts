/**
 * YAML read as data, and nothing more: scenario and config files are plain trees of maps, lists and
 * scalars. A file from elsewhere may carry what a YAML parser would do work for: custom tags
 * (`!!js/function`) and aliases. Tags are refused rather than printed as a Node warning; aliases are
 * capped, because resolving them costs time quadratic in their number (27,000 aliases in a 190 KB
 * file: 8 s; a few MB: a hang), and the parser's own `maxAliasCount` bounds only the copies per anchor.
 */
import { parseDocument, visit } from 'yaml';

/** More aliases than any hand-written file needs; generated files have none. */
export const MAX_YAML_ALIASES = 1000;

/** The first line of a parser message ("... at line 3, column 4:" is followed by a drawing of the spot). */
const firstLine = (message: string): string => message.split('\n')[0]!.replace(/:$/, '');

/**
 * The data of a YAML document that parses but uses custom tags (an mkdocs.yml's `!!python/name:`), the
 * tagged values read as plain ones; undefined for any other text. A folder walk tells such a file
 * (skipped when it is no ctxbench scenario) from a broken one.
 */
export function taggedYamlData(text: string): unknown {
  const doc = parseDocument(text, { logLevel: 'silent' });
  return doc.errors.length === 0 && doc.warnings.some((w) => w.code === 'TAG_RESOLVE_FAILED') ? doc.toJS() : undefined;
}

/** Parses `text` as a YAML data document; throws an Error whose message is one line saying what is wrong and where. */
export function parseYamlData(text: string): unknown {
  const doc = parseDocument(text, { logLevel: 'silent' });
  const [error] = doc.errors;
  if (error) throw new Error(firstLine(error.message));
  const tag = doc.warnings.find((w) => w.code === 'TAG_RESOLVE_FAILED');
  if (tag) throw new Error(`${firstLine(tag.message).replace(/^Unresolved tag/, 'tag')}: tags are not allowed, write the plain value`);
  let aliases = 0;
  visit(doc, {
    Alias: () => {
      aliases += 1;
      return aliases > MAX_YAML_ALIASES ? visit.BREAK : undefined;
    },
  });
  if (aliases > MAX_YAML_ALIASES) throw new Error(`more than ${MAX_YAML_ALIASES} aliases (*name): write the values out, or use JSON`);
  return doc.toJS();
}
