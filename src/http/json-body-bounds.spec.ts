import { holdsUnicodeEscape, nestingProblem } from './json-body-bounds';

/** The scan nestingProblem replaced, one character at a time: the reference it must agree with. */
function depthProblemAt(text: string, maxDepth: number): number | null {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '[' || c === '{') {
      if (++depth > maxDepth) return i;
    } else if (c === ']' || c === '}') depth--;
  }
  return null;
}

const offsetOf = (text: string, maxDepth: number) => (nestingProblem(text, maxDepth)?.details as { offset?: number } | undefined)?.offset ?? null;

describe('nestingProblem', () => {
  it('skips brackets inside strings, escaped quotes and runs of backslashes included', () => {
    expect(offsetOf('{"a":"[[[[","b":"\\"[[[["}', 1)).toBeNull();
    expect(offsetOf('{"a":"\\\\","b":[[1]]}', 2)).toBe(15);
    expect(offsetOf('{"a":"\\\\\\"[","b":[1]}', 1)).toBe(17);
    expect(offsetOf('["\\\\\\\\"]', 1)).toBeNull();
  });

  it('leaves text whose string never closes to JSON.parse', () => {
    expect(nestingProblem('{"a":"[[[[[[', 1)).toBeNull();
    expect(nestingProblem('{"a":"\\"', 1)).toBeNull();
  });

  it('agrees with the character-by-character scan on random texts of brackets, quotes and backslashes', () => {
    // A fixed seed: the same texts every run, so a failure can be replayed.
    let seed = 42;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const alphabet = ['[', ']', '{', '}', '"', '\\', 'a', ',', ':'];
    for (let n = 0; n < 20_000; n++) {
      const text = Array.from({ length: 1 + Math.floor(random() * 40) }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
      const maxDepth = 1 + Math.floor(random() * 4);
      expect([text, maxDepth, offsetOf(text, maxDepth)]).toEqual([text, maxDepth, depthProblemAt(text, maxDepth)]);
    }
  });
});

describe('holdsUnicodeEscape', () => {
  it('is true only for text with a \\u escape, the one way JSON.parse makes text the body does not spell out', () => {
    expect(holdsUnicodeEscape('{"a":"\\ud800"}')).toBe(true);
    expect(holdsUnicodeEscape('{"\\u005f_proto__":1}')).toBe(true);
    expect(holdsUnicodeEscape('{"a":"é😀\\n\\"\\\\"}')).toBe(false);
  });
});
