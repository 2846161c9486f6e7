/**
 * The offload store of one run: where strategies put what they take out of the context (large tool
 * results, file contents, the original conversation before a summary), so it can be read back.
 *
 * A replay keeps it in memory. Paths are built from tool names and call ids that come from the
 * conversation (seed 002's defect): every path is confined to the store, whatever those say.
 */
import type { TextPart } from './composed-text.js';

export interface OffloadStore {
  /**
   * Writes content under a confined path and returns that path. `parts`, when given, are what
   * `content` joins (core/composed-text.ts: the messages an archive quotes): an index of the store
   * searches a quoted text once, not once per file that quotes it.
   */
  write(path: string, content: string, parts?: readonly TextPart[]): string;
  read(path: string): string | undefined;
  list(): string[];
}

/** Turns any string into one safe path segment: no separators, no dot-dot, no control characters. */
export function safeSegment(raw: string): string {
  const cleaned = raw
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/^\.+/, '_')
    .slice(0, 120);
  return cleaned === '' ? '_' : cleaned;
}

/** Normalizes a store path: "/"-separated safe segments, rooted at the store, never escaping it. */
export function confine(path: string): string {
  const segments = path.split(/[\\/]+/).filter((s) => s !== '' && s !== '.' && s !== '..');
  return `/${segments.map(safeSegment).join('/')}`;
}

export function createOffloadStore(): OffloadStore {
  const files = new Map<string, string>();
  return {
    write(path, content) {
      const at = confine(path);
      files.set(at, content);
      return at;
    },
    read: (path) => files.get(confine(path)),
    list: () => [...files.keys()].sort(),
  };
}
