import { describe, expect, it } from 'vitest';
import { scenarioFileSchema } from '../schema.js';
import { fileStem, runId, safeId } from './runs.js';

describe('safeId', () => {
  it('makes every run of characters an id cannot hold one dash', () => {
    expect(safeId('owner/repo#12708')).toBe('owner-repo-12708');
    expect(safeId('my chat (1)')).toBe('my-chat-1-');
    expect(safeId('django__django-13344')).toBe('django__django-13344');
  });

  // Regression: a file stem over 200 characters failed with "id: at most 200 characters", a field not in the file.
  it('keeps a long name within the 200 characters an id may have, two long names apart', () => {
    const long = 'x'.repeat(250);
    for (const id of [safeId(long), fileStem(`/d/${long}.json`), runId(`/d/${long}.jsonl`, 3)]) {
      expect(id).toHaveLength(200);
      expect(scenarioFileSchema.shape.id.safeParse(id).success).toBe(true);
    }
    expect(safeId(`${long}a`)).not.toBe(safeId(`${long}b`));
    expect(safeId(long).startsWith('x'.repeat(183))).toBe(true);
  });
});
