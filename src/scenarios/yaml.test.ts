import { describe, expect, it, vi } from 'vitest';
import { MAX_YAML_ALIASES, parseYamlData } from './yaml.js';

/** `anchors` values, each referred to `uses` times: under the parser's per-anchor limit, many in all. */
function manyAliases(anchors: number, uses: number): string {
  const defs = Array.from({ length: anchors }, (_, i) => `  - &v${i} value${i}`);
  const refs = Array.from({ length: anchors }, (_, i) => `  - [${Array.from({ length: uses }, () => `*v${i}`).join(', ')}]`);
  return ['defs:', ...defs, 'uses:', ...refs].join('\n');
}

describe('parseYamlData', () => {
  it('reads plain data, with a few aliases', () => {
    expect(parseYamlData('a: 1\nb: [x, "y"]\nc: &c { d: true }\ne: *c\n')).toEqual({ a: 1, b: ['x', 'y'], c: { d: true }, e: { d: true } });
  });

  it('regression: refuses many aliases in one line instead of resolving them in quadratic time (a hang on a few MB)', () => {
    const text = manyAliases(300, 90); // 27,000 aliases, 90 per anchor: the parser's own limit (100) lets it through
    expect(() => parseYamlData(text)).toThrow(`more than ${MAX_YAML_ALIASES} aliases (*name): write the values out, or use JSON`);
    expect(() => parseYamlData(manyAliases(10, 90))).not.toThrow();
  });

  it("keeps the parser's limit on copies of one anchor (billion laughs)", () => {
    const levels = ['a0: &a0 [x, x, x, x, x, x, x, x, x, x]', ...Array.from({ length: 8 }, (_, i) => `a${i + 1}: &a${i + 1} [${Array(10).fill(`*a${i}`).join(', ')}]`)];
    expect(() => parseYamlData(levels.join('\n'))).toThrow(/resource exhaustion/);
  });

  it('regression: refuses a custom tag (!!js/function) in one line, with no Node warning printed', () => {
    const warn = vi.spyOn(process, 'emitWarning');
    try {
      expect(() => parseYamlData('model: !!js/function "function () {}"\n')).toThrow(
        'tag: tag:yaml.org,2002:js/function at line 1, column 8: tags are not allowed, write the plain value',
      );
      expect(() => parseYamlData('model: !custom x\n')).toThrow(/tag: !custom at line 1, column 8/);
      expect(warn).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
    }
  });

  it('says what is wrong and where, in one line', () => {
    let message = '';
    try {
      parseYamlData('a: [1, 2\nb: 3\n');
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/line \d+, column \d+/);
    expect(message).not.toContain('\n');
  });
});
