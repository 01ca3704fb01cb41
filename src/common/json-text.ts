/**
 * The JSON text of values that are never changed once made (a start's `config`, as the validation
 * pipe hands it on), kept from the first time it is serialized. What writes such a value out again
 * as part of something larger — the `run.queued` row, the 201 that answers the start — splices
 * that text in instead of serializing it once more: for a 2,000-step script, ~0.25 ms of the event
 * loop each time.
 */
const texts = new WeakMap<object, string>();

/** `JSON.stringify(value)`, made once per value and kept while the value lives. */
export function jsonText(value: object): string {
  let text = texts.get(value);
  if (text === undefined) {
    text = JSON.stringify(value);
    texts.set(value, text);
  }
  return text;
}

/** The text `jsonText` kept for this value, or `JSON.stringify(value)` made afresh and not kept. */
export const keptOrFreshJson = (value: object): string => texts.get(value) ?? JSON.stringify(value);

const known = (value: unknown): string | undefined => (value !== null && typeof value === 'object' ? texts.get(value) : undefined);

/**
 * `JSON.stringify(value)`, with the kept text of any of a plain object's own values spliced in
 * (one level deep: where the large values sit). Anything else is serialized as usual.
 */
export function jsonOf(value: unknown): string {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    return JSON.stringify(value);
  }
  const object = value as Record<string, unknown>;
  const keys = Object.keys(object);
  if (!keys.some((key) => known(object[key]) !== undefined)) return JSON.stringify(object);
  let json = '';
  for (const key of keys) {
    const part = known(object[key]) ?? (JSON.stringify(object[key]) as string | undefined);
    // Left out as JSON.stringify leaves them out: undefined, functions, symbols.
    if (part === undefined) continue;
    json += `${json === '' ? '' : ','}${JSON.stringify(key)}:${part}`;
  }
  return `{${json}}`;
}
