import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { joinParts, quote } from '../core/composed-text.js';
import { userMessage } from '../core/messages.js';
import { createOffloadStore } from '../core/offload-store.js';
import { answerSearch, foundInParts, indexStore } from './answer-index.js';
import { mentionsIndex } from './context-text.js';
import { ownedSearch, withEscaped } from './owned-search.js';
import { judgeProbe } from './probe-verdict.js';

const POINTER = userMessage({ id: 'm1', content: 'The history is in /conversation_history/ (grep it).' });

describe('indexStore', () => {
  it('lists the files that hold a string as written or JSON-escaped, and forgets a file written again without it', () => {
    const files = indexStore(createOffloadStore(), answerSearch(['timeout = 4711', 'owner = "Grace"']));
    files.write('/conversation_history/b.json', JSON.stringify({ content: 'owner = "Grace"' }));
    files.write('conversation_history/a.md', 'timeout = 4711 and owner = "Grace"');
    files.write('/x.txt', 'timeout = 4711');
    expect(files.holding('owner = "Grace"').list()).toEqual(['/conversation_history/a.md', '/conversation_history/b.json']);
    files.write('/x.txt', 'nothing');
    expect(files.holding('timeout = 4711').list()).toEqual(['/conversation_history/a.md']);
    expect(files.holding('not indexed').list()).toEqual(files.list());
    expect(files.read('/x.txt')).toBe('nothing');
    expect(files.size('/x.txt')).toBe('nothing'.length);
  });

  it('finds a string an append completes across the seam, and keeps what the file held before', () => {
    const files = indexStore(createOffloadStore(), answerSearch(['abc', 'xy']));
    files.write('/conversation_history/h.md', 'xy ab');
    files.write('/conversation_history/h.md', 'xy abc'); // appended: only the seam and the new text are searched
    expect(files.holding('abc').list()).toEqual(['/conversation_history/h.md']);
    expect(files.holding('xy').list()).toEqual(['/conversation_history/h.md']);
    files.write('/conversation_history/h.md', 'abc'); // rewritten: what it held before is forgotten
    expect(files.holding('xy').list()).toEqual([]);
  });

  it('gives judgeProbe the verdict the whole store gives, for any writes, rewrites and appends', () => {
    const unit = fc.constantFrom('q', 'z', '"', '\\', '-'); // none in POINTER: every verdict comes from the files
    const paths = fc.constantFrom('/conversation_history/1.json', '/conversation_history/2.md', '/tool_outputs/t.txt', '/other/o.txt');
    // An append writes the file's content with text added (as an archive is written at each summary).
    const write = fc.record({ path: paths, content: fc.string({ unit, maxLength: 30 }), append: fc.boolean() });
    fc.assert(
      fc.property(fc.array(fc.string({ unit, minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 6 }), fc.array(write, { maxLength: 12 }), (answers, writes) => {
        const plain = createOffloadStore();
        const indexed = indexStore(createOffloadStore(), answerSearch(answers));
        for (const w of writes) {
          const content = w.append ? (plain.read(w.path) ?? '') + w.content : w.content;
          [plain, indexed].forEach((s) => s.write(w.path, content));
        }
        for (const answer of answers) {
          expect(judgeProbe(answer, [POINTER], indexed.holding(answer), new Set())).toEqual(judgeProbe(answer, [POINTER], plain, new Set()));
          // The indexed store itself is a whole store, read file by file (as a reactive replay's agent reads it).
          expect(judgeProbe(answer, [POINTER], indexed, new Set())).toEqual(judgeProbe(answer, [POINTER], plain, new Set()));
          const escaped = JSON.stringify(answer).slice(1, -1);
          const holding = plain.list().filter((f) => plain.read(f)!.includes(answer) || plain.read(f)!.includes(escaped));
          expect(indexed.holding(answer).list()).toEqual(holding);
        }
      }),
    );
  });

  it('property: a text written or appended as parts (quotes searched once per owner, shared by stores) is indexed and read as the text itself', () => {
    const unit = fc.constantFrom('a', 'b', 'c', '"', '\\', '\n');
    const owners = Array.from({ length: 4 }, () => ({}));
    const texts = fc.array(fc.string({ unit, maxLength: 8 }), { minLength: 4, maxLength: 4 });
    // A part: literal text, or the quote of one of four owners (each with a fixed text).
    const part = fc.oneof(fc.string({ unit, maxLength: 6 }), fc.integer({ min: 0, max: 3 }));
    fc.assert(
      fc.property(fc.array(fc.string({ unit, minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 5 }), texts, fc.array(fc.array(part, { maxLength: 8 }), { minLength: 1, maxLength: 4 }), (answers, ownerTexts, writes) => {
        const search = answerSearch(answers);
        const quotes = owners.map((owner, i) => quote(owner, ownerTexts[i]!));
        const plain = indexStore(createOffloadStore(), answerSearch(answers));
        const composed = [indexStore(createOffloadStore(), search), indexStore(createOffloadStore(), search)];
        for (const [k, write] of writes.entries()) {
          const parts = write.map((p) => (typeof p === 'number' ? quotes[p]! : p));
          const path = `/conversation_history/${k % 2}.md`;
          const text = joinParts(parts);
          // Every other write appends to what the file holds, as deepagents' history file.
          if (k % 2 === 1) {
            plain.write(path, (plain.read(path) ?? '') + text);
            composed.forEach((store) => store.append(path, parts));
          } else {
            plain.write(path, text);
            composed.forEach((store) => store.write(path, parts));
          }
          expect(composed[k % 2]!.size(path)).toBe(plain.read(path)!.length);
          expect(composed[k % 2]!.read(path)).toBe(plain.read(path));
          expect([...foundInParts(search, parts)].sort()).toEqual([...search.find(text)].sort());
        }
        for (const store of composed) for (const answer of answers) expect(store.holding(answer).list()).toEqual(plain.holding(answer).list());
      }),
      { numRuns: 300 },
    );
  });

  it('property: over a search shared with the mentions index (and its other strings), it finds and indexes what it does alone; so does the index', () => {
    const unit = fc.constantFrom('a', 'b', '"', '\\', '\n');
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit, minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 4 }),
        fc.array(fc.string({ unit, minLength: 1, maxLength: 3 }), { maxLength: 4 }),
        fc.array(fc.string({ unit, maxLength: 12 }), { minLength: 1, maxLength: 6 }),
        (answers, targets, contents) => {
          const shared = ownedSearch(withEscaped([...answers, ...targets]));
          const [alone, over] = [answerSearch(answers), answerSearch(answers, shared)];
          expect(over.patterns).toEqual(alone.patterns);
          expect(over.longest).toBe(alone.longest);
          const messages = contents.map((content, i) => userMessage({ id: `m${i}`, content }));
          const [mentionsAlone, mentionsOver] = [mentionsIndex([...answers, ...targets]), mentionsIndex([...answers, ...targets], shared)];
          for (const m of messages) {
            // The index asks first for some messages, the store's search for the others: the text is read once either way.
            if (Number(m.id.slice(1)) % 2 === 0) for (const t of [...answers, ...targets]) expect(mentionsOver(m, t)).toBe(mentionsAlone(m, t));
            expect([...over.inQuote(quote(m, m.content))].sort()).toEqual([...alone.inQuote(quote(m, m.content))].sort());
            expect([...over.find(m.content, 1)].sort()).toEqual([...alone.find(m.content, 1)].sort());
            for (const t of [...answers, ...targets]) expect(mentionsOver(m, t)).toBe(mentionsAlone(m, t));
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
