import { describe, expect, it } from 'vitest';
import type { EventRecord } from '../core/run-records.js';
import { sampleRuns } from '../../test/helpers/report-fixtures.js';
import { timelineEvents, timelineOf } from './timeline.js';

const e = (step: number, kind: EventRecord['kind'], extra: Partial<EventRecord> = {}): EventRecord => ({ step, session: 1, kind, detail: `${kind} at ${step}`, ...extra });

describe('timelineEvents', () => {
  it('keeps the recorded order, one masked entry per step where its first output was masked', () => {
    const events = [
      e(3, 'masked', { messageId: 'm1' }),
      e(3, 'warned'),
      e(3, 'masked', { messageId: 'm2' }),
      e(4, 'restart', { messageId: 'marker', messageIds: ['m5', 'm6'], text: 'restarted' }),
      e(4, 'masked'),
    ];
    expect(timelineEvents(events)).toEqual([
      { step: 3, kind: 'masked', detail: '2 tool outputs', ids: ['m1', 'm2'] },
      { step: 3, kind: 'warned', detail: 'warned at 3' },
      { step: 4, kind: 'restart', detail: 'restart at 4', ids: ['m5', 'm6'], text: 'restarted' },
      { step: 4, kind: 'masked', detail: '1 tool output' },
    ]);
  });

  it('names the one message an event concerns when it lists none', () => {
    expect(timelineEvents([e(2, 'offloaded', { messageId: 'm3' })])).toEqual([{ step: 2, kind: 'offloaded', detail: 'offloaded at 2', ids: ['m3'] }]);
  });

  it('cuts what would bloat the page: long details and very long texts', () => {
    const [event] = timelineEvents([e(1, 'summarized', { detail: 'd'.repeat(1000), text: 't'.repeat(50_000) })]);
    expect(event!.detail).toHaveLength(400);
    expect(event!.detail.endsWith('…')).toBe(true);
    expect(event!.text).toHaveLength(20_000);
  });
});

describe('timelineOf', () => {
  const column = { label: 'masking', name: 'masking', sub: '', color: '#2f6db5', dash: [] };

  it("carries a live run's probe replies and verdicts, and nothing of the kind for a judged one", () => {
    const run = sampleRuns()[0]!;
    const probe = { probeId: 'p1', step: 2, answer: 'req_0123', how: 'verbatim' as const };
    const asked = timelineOf({ ...run, probes: [{ ...probe, reply: 'It was req_0123.', answered: true }] }, column);
    expect(asked.probes).toEqual([{ step: 2, id: 'p1', how: 'verbatim', answer: 'req_0123', reply: 'It was req_0123.', answered: true }]);
    const judged = timelineOf({ ...run, probes: [probe] }, column);
    expect(judged.probes).toEqual([{ step: 2, id: 'p1', how: 'verbatim', answer: 'req_0123' }]);
  });
});
