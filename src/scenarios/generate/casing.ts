/** How words are joined: into a sentence, or into a snake_case, camelCase or PascalCase identifier. */

export const sentence = (phrase: string): string => `${phrase[0]!.toUpperCase()}${phrase.slice(1)}.`;
export const snake = (...words: string[]): string => words.join('_');
export const camel = (...words: string[]): string => words.map((w, i) => (i === 0 ? w : w[0]!.toUpperCase() + w.slice(1))).join('');
export const pascal = (...words: string[]): string => words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
