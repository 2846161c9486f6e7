import { describe, expect, it } from 'vitest';
import { quote } from './composed-text.js';
import { confine, createOffloadStore } from './offload-store.js';

describe('createOffloadStore', () => {
  it('reads back what was written, as text or as the parts it joins, and what was appended to it', () => {
    const files = createOffloadStore();
    const owner = { text: 'quoted' };
    files.write('/a.md', ['# ', quote(owner, owner.text), '\n']);
    expect(files.read('a.md')).toBe('# quoted\n');
    files.append('/a.md', 'more');
    files.append('/a.md', [quote(owner, owner.text)]);
    expect(files.size('/a.md')).toBe('# quoted\nmorequoted'.length);
    expect(files.read('/a.md')).toBe('# quoted\nmorequoted');
    files.append('/b.txt', 'new');
    files.write('/a.md', 'replaced');
    expect(files.list()).toEqual(['/a.md', '/b.txt']);
    expect([files.read('/a.md'), files.read('/b.txt'), files.read('/c')]).toEqual(['replaced', 'new', undefined]);
    expect([files.size('/a.md'), files.size('/c')]).toEqual([8, undefined]);
  });

  it('confines every path to the store', () => {
    expect(confine('../../etc/passwd')).toBe('/etc/passwd');
    expect(confine('a\\..\\b/./c d')).toBe('/a/b/c_d');
    const files = createOffloadStore();
    expect(files.write('../x', 'y')).toBe('/x');
  });
});
