import { scenarioInvalid } from '../core/errors.js';

/**
 * `value` as JSON text (a tool call's arguments recorded as an object). JSON.stringify recurses, so a
 * value nested some thousands of levels deep (a 30 KB file) overflows the stack: that is the file's
 * problem, named in one line, not a crash.
 */
export function jsonText(value: unknown, file: string, where: string): string {
  try {
    return JSON.stringify(value);
  } catch (error) {
    if (error instanceof RangeError) throw scenarioInvalid(file, `${where}: nested too deeply to write as JSON text`);
    throw error;
  }
}
