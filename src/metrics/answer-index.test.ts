import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { userMessage } from '../core/messages.js';
import { createOffloadStore } from '../core/offload-store.js';
import { indexStore } from './answer-index.js';
import { judgeProbe } from './probe-verdict.js';

const POINTER = userMessage({ id: 'm1', content: 'The history is in /conversation_history/ (grep it).' });

describe('indexStore', () => {
  it('lists the files that hold a string as written or JSON-escaped, and forgets a file written again without it', () => {
    const files = indexStore(createOffloadStore(), ['timeout = 4711', 'owner = "Grace"']);
    files.write('/conversation_history/b.json', JSON.stringify({ content: 'owner = "Grace"' }));
    files.write('conversation_history/a.md', 'timeout = 4711 and owner = "Grace"');
    files.write('/x.txt', 'timeout = 4711');
    expect(files.holding('owner = "Grace"').list()).toEqual(['/conversation_history/a.md', '/conversation_history/b.json']);
    files.write('/x.txt', 'nothing');
    expect(files.holding('timeout = 4711').list()).toEqual(['/conversation_history/a.md']);
    expect(files.holding('not indexed').list()).toEqual(files.list());
    expect(files.holding('timeout = 4711').read('/x.txt')).toBe('nothing');
  });

  it('gives judgeProbe the verdict the whole store gives, for any writes and rewrites', () => {
    const unit = fc.constantFrom('q', 'z', '"', '\\', '-'); // none in POINTER: every verdict comes from the files
    const write = fc.record({ path: fc.constantFrom('/conversation_history/1.json', '/conversation_history/2.md', '/tool_outputs/t.txt', '/other/o.txt'), content: fc.string({ unit, maxLength: 30 }) });
    fc.assert(
      fc.property(fc.array(fc.string({ unit, minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 6 }), fc.array(write, { maxLength: 8 }), (answers, writes) => {
        const plain = createOffloadStore();
        const indexed = indexStore(createOffloadStore(), answers);
        for (const w of writes) [plain, indexed].forEach((s) => s.write(w.path, w.content));
        for (const answer of answers) {
          expect(judgeProbe(answer, [POINTER], indexed.holding(answer), new Set())).toEqual(judgeProbe(answer, [POINTER], plain, new Set()));
        }
      }),
    );
  });
});
