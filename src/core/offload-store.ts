/**
 * The offload store of one run: where strategies put what they take out of the context (large tool
 * results, file contents, the original conversation before a summary), so it can be read back.
 *
 * A replay keeps it in memory. Paths are built from tool names and call ids that come from the
 * conversation (seed 002's defect): every path is confined to the store, whatever those say.
 */
import { joinParts, partText, type TextPart } from './composed-text.js';

/**
 * A file's content: its text, or the parts it joins (core/composed-text.ts: an archive quoting the
 * messages it holds). Parts are joined only when the file is read, and an index of the store searches
 * a quoted text once, not once per file that quotes it.
 */
export type FileContent = string | readonly TextPart[];

export interface OffloadStore {
  /** Writes content under a confined path, replacing what the file held, and returns that path. */
  write(path: string, content: FileContent): string;
  /** Adds content at the end of the file (a new file when there is none); returns its path. */
  append(path: string, content: FileContent): string;
  read(path: string): string | undefined;
  /** The file's length in characters (undefined: no such file), without joining its parts. */
  size(path: string): number | undefined;
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

/** A file: its parts, joined into one text at the first read (and kept as that text), and its length. */
interface StoredFile {
  parts: TextPart[];
  size: number;
}

const partsOf = (content: FileContent): readonly TextPart[] => (typeof content === 'string' ? [content] : content);
const lengthOf = (parts: readonly TextPart[]): number => parts.reduce((n, part) => n + partText(part).length, 0);

export function createOffloadStore(): OffloadStore {
  const files = new Map<string, StoredFile>();
  return {
    write(path, content) {
      const at = confine(path);
      const parts = partsOf(content);
      files.set(at, { parts: [...parts], size: lengthOf(parts) });
      return at;
    },
    append(path, content) {
      const at = confine(path);
      const parts = partsOf(content);
      const file = files.get(at);
      if (file === undefined) files.set(at, { parts: [...parts], size: lengthOf(parts) });
      else {
        for (const part of parts) file.parts.push(part);
        file.size += lengthOf(parts);
      }
      return at;
    },
    read(path) {
      const file = files.get(confine(path));
      if (file === undefined) return undefined;
      if (file.parts.length !== 1 || typeof file.parts[0] !== 'string') file.parts = [joinParts(file.parts)];
      return file.parts[0] as string;
    },
    size: (path) => files.get(confine(path))?.size,
    list: () => [...files.keys()].sort(),
  };
}
