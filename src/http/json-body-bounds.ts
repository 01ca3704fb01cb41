import { ApiError, validationError } from './api-error';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;

/**
 * Refuses a body nested deeper than `maxDepth` arrays and objects (the body itself is level 1),
 * counted on the text before it is parsed: one pass without allocating, stopping at the first
 * level too deep. Deep values broke what comes after the parse (class-transformer, JSON.stringify
 * in the store's commit, both recursive: a 500 with a stack trace), and V8 takes some 400 ms to
 * parse a 1 MiB body of nothing but brackets, which this refuses at its 65th bracket.
 * Strings are jumped over with indexOf (most of a large body is text): 3–4 times faster than
 * looking at each of their characters. Malformed text is left to JSON.parse.
 */
export function nestingProblem(text: string, maxDepth: number): ApiError | null {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = closingQuote(text, i);
      if (i < 0) return null;
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > maxDepth) {
        return validationError(`request body nests arrays and objects deeper than ${maxDepth} levels (MAX_JSON_DEPTH)`, { maxDepth, offset: i });
      }
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) depth--;
  }
  return null;
}

/** Where the string opened at `open` ends: the next quote after an even run of backslashes; -1 when none does. */
function closingQuote(text: string, open: number): number {
  for (let at = text.indexOf('"', open + 1); at !== -1; at = text.indexOf('"', at + 1)) {
    let backslashes = 0;
    while (text.charCodeAt(at - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
  return -1;
}

/**
 * Whether JSON.parse can make of this text a string or key that the text does not spell out: only
 * through a `\u` escape. The body arrives decoded from UTF-8, which never yields a lone surrogate
 * (a malformed sequence becomes U+FFFD), so without one no lone surrogate can be in the value, and
 * every key is written in the text as it is.
 */
export const holdsUnicodeEscape = (text: string): boolean => text.includes('\\u');

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
/** Past this a path is cut: a key may be as long as the body. */
const MAX_PATH_CHARS = 200;

/** Node 20 has String.prototype.isWellFormed; the project's TypeScript lib (ES2022) does not declare it. */
const wellFormed = (text: string): boolean => (text as string & { isWellFormed(): boolean }).isWellFormed();

interface Node {
  value: unknown;
  parent: Node | null;
  key: string | number;
}

/** `metadata.tags[2]`, `config["odd key"]`: built only for the one node that is reported. */
function pathOf(node: Node): string {
  const parts: string[] = [];
  for (let at: Node | null = node; at?.parent; at = at.parent) {
    const key = at.key;
    parts.push(typeof key === 'number' ? `[${key}]` : IDENTIFIER.test(key) ? (at.parent.parent ? `.${key}` : key) : `[${JSON.stringify(key)}]`);
  }
  const path = parts.reverse().join('');
  return path.length > MAX_PATH_CHARS ? `${path.slice(0, MAX_PATH_CHARS)}…` : path;
}

/** Whether any string or key anywhere in `body` is ill-formed: the fast pass, keeping no paths. */
function holdsIllFormedText(body: unknown): boolean {
  const pending: unknown[] = [body];
  while (pending.length > 0) {
    const value = pending.pop();
    const children = Array.isArray(value) ? value : Object.values(value as object);
    if (!Array.isArray(value) && !Object.keys(value as object).every(wellFormed)) return true;
    for (const child of children) {
      if (typeof child === 'string') {
        if (!wellFormed(child)) return true;
      } else if (child !== null && typeof child === 'object') pending.push(child);
    }
  }
  return false;
}

/** The first ill-formed string or key in document order, with its path (run only once one is known to exist). */
function locateIllFormedText(body: unknown): ApiError | null {
  const pending: Node[] = [{ value: body, parent: null, key: '' }];
  while (pending.length > 0) {
    const node = pending.pop()!;
    const { value } = node;
    if (typeof value === 'string') {
      if (!wellFormed(value)) return illFormed(`${pathOf(node) || 'request body'} is not well-formed Unicode (it holds a lone surrogate)`, node);
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) pending.push({ value: value[i], parent: node, key: i });
    } else if (value !== null && typeof value === 'object') {
      const keys = Object.keys(value);
      if (!keys.every(wellFormed)) {
        return illFormed(`${pathOf(node) || 'request body'} has a key that is not well-formed Unicode (it holds a lone surrogate)`, node);
      }
      for (let i = keys.length - 1; i >= 0; i--) pending.push({ value: (value as Record<string, unknown>)[keys[i]], parent: node, key: keys[i] });
    }
  }
  return null;
}

const illFormed = (message: string, node: Node) => validationError(message, { field: pathOf(node) });

/**
 * Refuses text that is not well-formed Unicode — a lone surrogate, which JSON's `\ud800` escape
 * can carry — in any string or key of a parsed body (an object), naming the field. Stored as sent
 * in the log, such text came back from SQLite's read models as U+FFFD: the read model no longer
 * equalled the log. Iterative and linear: a pass that keeps no paths, and only when it finds one,
 * a second that names it.
 */
export function unicodeProblem(body: object): ApiError | null {
  return holdsIllFormedText(body) ? locateIllFormedText(body) : null;
}
