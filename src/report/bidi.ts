/**
 * Scenario text reaches the page with its bidirectional controls written out ("\u202e"), as the CLI
 * writes out control characters: an embedding, override or isolate from a recording would otherwise
 * reorder the text around it (a title's neighbours in the header, the matrix, a tab, the timeline)
 * and make the text itself read as it is not ("elif-tset" shown as "test-file").
 */
const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** `text` with every bidirectional control written as \uXXXX. */
export const visibleBidi = (text: string): string =>
  text.replace(BIDI_CONTROLS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

const isPlain = (value: object): boolean => {
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
};

/**
 * `value` with `visibleBidi` applied to every string in its arrays and plain objects (a Date, a Map
 * stays as it is). Whatever holds no control is returned as is, not copied: most runs hold none.
 */
export function withVisibleBidi<T>(value: T): T {
  if (typeof value === 'string') return visibleBidi(value) as T;
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    const items = value.map(withVisibleBidi);
    return (items.some((item, i) => item !== value[i]) ? items : value) as T;
  }
  if (!isPlain(value)) return value;
  const entries = Object.entries(value).map(([k, v]) => [k, withVisibleBidi(v)] as const);
  const record = value as Record<string, unknown>;
  return (entries.some(([k, v]) => v !== record[k]) ? Object.fromEntries(entries) : value) as T;
}
