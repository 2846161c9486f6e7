/**
 * JSON with object keys sorted at every depth: the same value always gives the same text, whatever
 * order its keys were built in, so it can be hashed into cache keys and fingerprints.
 */
export function stableJson(value: unknown): string {
  return JSON.stringify(value, (_name, item: unknown) =>
    item !== null && typeof item === 'object' && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : item,
  );
}
