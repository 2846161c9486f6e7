import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { markdownCode, markdownText } from './markdown.js';

describe('markdownText', () => {
  it('regression: a model name carrying HTML reaches the markdown as text, not as a tag', () => {
    expect(markdownText('<script>alert(1)</script>')).toBe('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(markdownText('<img src=x onerror="alert(1)">')).toBe('&lt;img src=x onerror="alert(1)"&gt;');
  });

  it('escapes markdown syntax and keeps a table cell in one piece on one line', () => {
    expect(markdownText('a | b\n**bold** [link](http://x) `code` # h _i_')).toBe('a \\| b \\*\\*bold\\*\\* \\[link\\](http://x) \\`code\\` \\# h \\_i\\_');
  });

  it('property: no raw <, >, unescaped | or line break survives', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        const out = markdownText(text);
        expect(out).not.toMatch(/[<>\n\r]/);
        expect(out).not.toMatch(/(^|[^\\])(\\\\)*\|/);
      }),
    );
  });
});

describe('markdownCode', () => {
  it('cannot be ended early by a backtick, and stays on one line', () => {
    expect(markdownCode('a`<b>\nc')).toBe("`a'<b> c`");
  });
});
