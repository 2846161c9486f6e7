/**
 * Free text (scenario ids and titles, model names, file names: anything a recording or a user wrote)
 * in the markdown ctxbench writes for PR comments and job summaries, where a renderer would run raw
 * HTML and markdown syntax: as text, on one line.
 */

/** Markdown syntax and HTML-significant characters: backslash-escaped or, for HTML, entities. */
const SYNTAX = /[\\`*_[\]|#!~]/g;
const ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

/** `text` as literal markdown prose on one line: no HTML, no emphasis, link, code, heading or table cell break. */
export function markdownText(text: string): string {
  return text
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[&<>]/g, (c) => ENTITIES[c]!)
    .replace(SYNTAX, (c) => `\\${c}`);
}

/** `text` for a code span (`` `...` ``): one line, and no backtick that would end the span early. */
export function markdownCode(text: string): string {
  return `\`${text.replace(/\s+/g, ' ').trim().replace(/`/g, "'")}\``;
}
