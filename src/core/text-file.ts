/**
 * The text of a file a person edits (a scenario, a baseline, a tolerance or calibration file, a
 * config): a byte order mark, which Windows editors write, is no part of JSON or YAML.
 */
export const withoutByteOrderMark = (text: string): string => (text.startsWith('\uFEFF') ? text.slice(1) : text);
