/**
 * Text from a file we did not write (a key, an id, a model name) goes into our one-line messages: its
 * control characters are printed escaped, so a hostile file cannot move the cursor, recolour or clear
 * the terminal, or break the message over several lines.
 */

/** C0 controls (newline and tab included), DEL and C1 controls. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/** `text` with every control character escaped as \n, \t, \r or \xHH. */
export function printable(text: string): string {
  return text.replace(CONTROL, (c) => {
    if (c === '\n') return '\\n';
    if (c === '\t') return '\\t';
    if (c === '\r') return '\\r';
    return `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`;
  });
}
