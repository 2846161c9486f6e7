/**
 * Filler text about the world: code lines in its language, numbered listings, timestamps and log lines,
 * all drawn from the "text" stream, plus the line helpers the tool outputs are built with. Numbers in
 * filler stay below 100,000 and never touch another digit, so filler never holds a planted number.
 */
import { camel, sentence } from './casing.js';
import type { Rng } from './random.js';
import { ERRORS, LOG_PATHS, MODULES, PHRASES, SUBPACKAGES, TS_ERRORS, UNICODE_PHRASES, VARS } from './vocabulary.js';
import type { World } from './world.js';

export class Text {
  constructor(
    readonly rng: Rng,
    readonly world: World,
  ) {}

  phrase(): string {
    return this.rng.chance(0.03) ? this.rng.pick(UNICODE_PHRASES) : this.rng.pick(PHRASES);
  }
  fn(): string {
    return this.rng.pick(this.world.functions);
  }
  file(): string {
    return this.rng.pick(this.world.files);
  }
  test(): string {
    return this.rng.pick(this.world.tests);
  }
  cls(): string {
    return this.rng.pick(this.world.classes);
  }
  v(): string {
    return this.world.lang === 'python' ? this.rng.pick(VARS) : camel(...this.rng.pick(VARS).split('_'));
  }

  /** One line of code at a random indentation, in the world's language. */
  codeLine(): string {
    return this.world.lang === 'python' ? this.pyLine() : this.tsLine();
  }

  private pyLine(): string {
    const r = this.rng;
    const ind = '    '.repeat(r.int(0, 2));
    switch (r.int(0, 13)) {
      case 0:
        return `def ${this.fn()}(${this.v()}, ${this.v()}=None):`;
      case 1:
        return `class ${this.cls()}(${r.pick(['object', 'BaseModel', 'Protocol', this.cls()])}):`;
      case 2:
        return `${ind}${this.v()} = ${this.fn()}(${this.v()}, ${r.int(0, 4096)})`;
      case 3:
        return `${ind}if ${this.v()} is None:`;
      case 4:
        return `${ind}    return ${r.pick(['None', '[]', '{}', 'False', this.v()])}`;
      case 5:
        return `${ind}for ${r.pick(['item', 'row', 'key', 'entry'])} in ${this.v()}:`;
      case 6:
        return `${ind}# ${this.phrase()}`;
      case 7:
        return `${ind}raise ${r.pick(ERRORS)}(f"${this.phrase()}: {${this.v()}!r}")`;
      case 8:
        return `${ind}logger.debug("${this.phrase()} %s", ${this.v()})`;
      case 9:
        return `${ind}self.${this.v()} = ${this.v()}`;
      case 10:
        return `from ${this.world.project}.${r.pick(SUBPACKAGES)}.${r.pick(MODULES)} import ${this.cls()}, ${this.fn()}`;
      case 11:
        return `${ind}"""${sentence(this.phrase())}"""`;
      case 12:
        return '';
      default:
        return `${ind}return ${this.fn()}(${this.v()}, ${this.v()}=${this.v()})`;
    }
  }

  private tsLine(): string {
    const r = this.rng;
    const ind = '  '.repeat(r.int(0, 2));
    switch (r.int(0, 13)) {
      case 0:
        return `export function ${this.fn()}(${this.v()}: ${r.pick(['string', 'number', this.cls()])}, ${this.v()}?: Options): ${this.cls()} {`;
      case 1:
        return `export class ${this.cls()} implements ${this.cls()} {`;
      case 2:
        return `${ind}const ${this.v()} = ${this.fn()}(${this.v()}, ${r.int(0, 4096)});`;
      case 3:
        return `${ind}if (${this.v()} === undefined) {`;
      case 4:
        return `${ind}  return ${r.pick(['undefined', '[]', '{}', 'false', this.v()])};`;
      case 5:
        return `${ind}for (const ${r.pick(['item', 'row', 'key', 'entry'])} of ${this.v()}) {`;
      case 6:
        return `${ind}// ${this.phrase()}`;
      case 7:
        return `${ind}throw new ${r.pick(TS_ERRORS)}(\`${this.phrase()}: \${${this.v()}}\`);`;
      case 8:
        return `${ind}logger.debug('${this.phrase()}', { ${this.v()} });`;
      case 9:
        return `${ind}this.${this.v()} = ${this.v()};`;
      case 10:
        return `import { ${this.cls()}, ${this.fn()} } from '../${r.pick(SUBPACKAGES)}/${camel(...r.pick(MODULES).split('_'))}.js';`;
      case 11:
        return `${ind}}`;
      case 12:
        return '';
      default:
        return `${ind}return await ${this.fn()}(${this.v()}, { ${this.v()} });`;
    }
  }

  /** `cat -n` style numbered lines. */
  numbered(lines: readonly string[], start: number): string {
    return lines.map((line, i) => `${String(start + i).padStart(6)}\t${line}`).join('\n');
  }

  /** About `chars` characters of numbered code lines from line `start` (numbering included). */
  numberedCode(chars: number, start: number, min = 1): string[] {
    let n = start;
    return fill(chars, () => `${String(n++).padStart(6)}\t${this.codeLine()}`, min);
  }

  timestamp(): string {
    const r = this.rng;
    const p = (n: number, w = 2): string => String(n).padStart(w, '0');
    return `2024-${p(r.int(1, 12))}-${p(r.int(1, 28))} ${p(r.int(0, 23))}:${p(r.int(0, 59))}:${p(r.int(0, 59))},${p(r.int(0, 999), 3)}`;
  }

  logLine(): string {
    const r = this.rng;
    const level = r.pick(['INFO', 'INFO', 'INFO', 'DEBUG', 'WARNING']);
    const status = r.pick([200, 200, 200, 201, 204, 304, 404]);
    return `${this.timestamp()} ${level} ${this.world.project}.${r.pick(MODULES)} method=${r.pick(['GET', 'POST', 'PUT'])} path=${r.pick(LOG_PATHS)} status=${status} duration_ms=${r.int(1, 2500)} request_id=req_${r.hex(12)}`;
  }
}

/** Lines from `make` until about `chars` characters (at least `min` lines). */
export function fill(chars: number, make: () => string, min = 1): string[] {
  const out: string[] = [];
  let size = 0;
  while (size < chars || out.length < min) {
    const line = make();
    out.push(line);
    size += line.length + 1;
  }
  return out;
}

/** Inserts `line` at a random position of `lines` (in place) and returns the position. */
export function insertAt(rng: Rng, lines: string[], line: string, from = 0): number {
  const at = rng.int(Math.min(from, lines.length), lines.length);
  lines.splice(at, 0, line);
  return at;
}
