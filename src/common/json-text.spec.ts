import { jsonOf, jsonText } from './json-text';

describe('jsonText and jsonOf', () => {
  it('jsonText is JSON.stringify, made once per value', () => {
    const config = { script: [{ type: 'text', text: 'a"b\\c\u2028' }] };
    const spy = jest.spyOn(JSON, 'stringify');
    expect(jsonText(config)).toBe('{"script":[{"type":"text","text":"a\\"b\\\\c\u2028"}]}');
    expect(jsonText(config)).toBe(jsonText(config));
    expect(spy).toHaveBeenCalledTimes(1);
    spy.mockRestore();
  });

  it('jsonOf splices a known value in and otherwise writes exactly what JSON.stringify writes', () => {
    const config = { script: [{ type: 'delay', ms: 1 }], cleanup: 'ok' };
    jsonText(config);
    const when = new Date(0);
    const values: unknown[] = [
      { id: 'x', config, input: { text: 'é' }, gone: undefined, fn: () => 1, list: [1, undefined], when, nothing: null },
      { config },
      { before: config, 'odd "key"': config, after: 1 },
      [config, 1],
      'text',
      null,
      { toJSON: () => ({ config }) },
    ];
    for (const value of values) expect(jsonOf(value)).toBe(JSON.stringify(value));
  });

  it('a spliced value is the text kept when it was first serialized', () => {
    const config = { a: 1 };
    jsonText(config);
    // Values handed to jsonText are never changed afterwards; this shows what the splice relies on.
    (config as Record<string, unknown>).b = 2;
    expect(jsonOf({ config })).toBe('{"config":{"a":1}}');
  });
});
