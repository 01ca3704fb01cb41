import fc from 'fast-check';

/**
 * Generators for the route fuzz test. Values that name things created before the run (an existing
 * conversation, execution or action) are markers (`$conversation`, …) resolved when the request
 * is sent, so generation does not depend on the running app.
 */
export const MARKERS = ['$conversation', '$execution', '$waiting', '$approval', '$input', '$inputAction'] as const;
export type Marker = (typeof MARKERS)[number];

const enc = encodeURIComponent;
/** Printable ASCII a client may put in a path or query as is (no `#`, which ends the URL). */
const rawAscii = (max: number) => fc.stringMatching(new RegExp(`^[!-"$-~]{0,${max}}$`));
const anyText = (max: number) => fc.string({ unit: 'grapheme', maxLength: max });

/** One path segment: an existing id, a plausible one, encoded Unicode, raw ASCII, or a known troublemaker. */
export const pathSegment = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom<string>(...MARKERS) },
  { weight: 2, arbitrary: fc.uuid().map(String) },
  { weight: 2, arbitrary: anyText(30).map(enc) },
  { weight: 2, arbitrary: rawAscii(20).map((s) => s.replace(/[/?]/g, '')) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '',
      '%',
      '%E0%A4%A',
      '%ZZ',
      '%00',
      '%2F',
      '%3A',
      '%20',
      '..',
      '.',
      'a:b',
      '::',
      ':cancel',
      '*',
      '%C0%AF',
      '%FF',
      'x'.repeat(3000),
    ),
  },
);

const queryKey = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('after', 'limit', 'status', 'provider', 'conversationId', 'createdAfter', 'createdBefore', 'cursor') },
  { weight: 1, arbitrary: anyText(10) },
  { weight: 1, arbitrary: fc.constantFrom('__proto__', 'constructor', 'hasOwnProperty', 'a[b]', 'a.b', '') },
);
const queryValue = fc.oneof(
  fc.nat().map(String),
  fc.integer().map(String),
  fc.constantFrom(
    '',
    '0',
    '-1',
    '1.5',
    '1e3',
    ' 1',
    '0x10',
    '99999999999999999999',
    '9007199254740993',
    'running',
    'completed',
    'requires_action',
    'scripted',
    '$conversation',
    '2026-01-01T00:00:00.000Z',
    '2026-13-45T99:00:00Z',
    'not-a-date',
  ),
  anyText(20),
);

/** A query string (without the `?`): structured pairs, encoded or raw, repeated keys included. */
export const queryString = fc.oneof(
  { weight: 8, arbitrary: fc.constant('') },
  {
    weight: 4,
    arbitrary: fc
      .array(fc.tuple(queryKey, queryValue, fc.boolean()), { maxLength: 4 })
      .map((pairs) => pairs.map(([k, v, bare]) => (bare && v === '' ? enc(k) : `${enc(k)}=${enc(v)}`)).join('&')),
  },
  { weight: 1, arbitrary: rawAscii(30) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '=',
      '&&',
      '%',
      'after=%zz',
      'after=%E0%A4%A',
      'limit=1&limit=2',
      'after[]=1',
      'after[a]=1',
      '__proto__[x]=1',
      'limit',
      'limit=',
    ),
  },
);

/** Header values Node's client will send: tab, printable ASCII and Latin-1. */
const headerValue = fc.stringMatching(/^[\t\x20-\x7e\x80-\xff]{0,60}$/);
/** Names the client or the connection owns, left alone (raw framing errors have their own test). */
const RESERVED = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'expect',
  'upgrade',
  'keep-alive',
  'te',
  'trailer',
  'authorization',
  'content-type',
  'accept',
  'last-event-id',
  'origin',
  'range',
  'if-match',
  'if-none-match',
  'if-unmodified-since',
  'if-modified-since',
]);
const headerName = fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/).filter((name) => !RESERVED.has(name));

/** `$key` is replaced with the suite's API key; the other values are wrong keys of every kind. */
const authorization = fc.oneof(
  { weight: 12, arbitrary: fc.constant('Bearer $key') },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '',
      'Bearer',
      'Bearer ',
      'Bearer wrong',
      'Basic Zm9vOmJhcg==',
      'bearer $key',
      'Bearer  $key ',
      'Bearer eyJhbGciOiJub25lIn0.e30.',
      'Bearer a.b.c',
    ),
  },
  { weight: 1, arbitrary: headerValue },
);

export const headers = fc.record(
  {
    authorization,
    accept: fc.oneof(
      fc.constantFrom(
        'text/event-stream',
        'application/json',
        '*/*',
        'text/event-stream, application/json',
        'text/event-stream;q=0',
        'TEXT/EVENT-STREAM',
        '',
        'garbage',
      ),
      headerValue,
    ),
    'content-type': fc.oneof(
      { weight: 6, arbitrary: fc.constant('application/json') },
      fc.constantFrom(
        'application/json',
        'application/json; charset=utf-8',
        'APPLICATION/JSON',
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        ';;',
        'application/jsonx',
        'application/json; charset=latin1',
        '',
      ),
      headerValue,
    ),
    'last-event-id': fc.oneof(fc.nat().map(String), fc.constantFrom('-1', 'abc', '', '1.5', '99999999999999999999999', '0'), headerValue),
    origin: fc.constantFrom('https://app.example.com', 'https://evil.example', 'null'),
    'x-request-id': headerValue,
    // Conditional and partial requests, which the static files under /docs/ honour.
    range: fc.oneof(fc.constantFrom('bytes=0-5', 'bytes=99999999-', 'bytes=5-1', 'bytes=-0', 'items=1-2', 'bytes=0-1,2-3'), headerValue),
    'if-match': fc.oneof(fc.constantFrom('"nope"', '*', 'W/"x"'), headerValue),
    'if-none-match': fc.oneof(fc.constantFrom('"nope"', '*'), headerValue),
    'if-unmodified-since': fc.oneof(fc.constantFrom('Thu, 01 Jan 1970 00:00:00 GMT', 'not a date'), headerValue),
    'if-modified-since': fc.oneof(fc.constantFrom('Thu, 01 Jan 2099 00:00:00 GMT', 'not a date'), headerValue),
    extra: fc.tuple(headerName, headerValue),
  },
  { requiredKeys: ['authorization', 'content-type'] },
);

const FIELDS = [
  'title',
  'metadata',
  'conversationId',
  'provider',
  'input',
  'text',
  'requiredCapabilities',
  'config',
  'idempotencyKey',
  'reason',
  'decision',
  'comment',
  'value',
  'script',
  'cleanup',
  'type',
  'ms',
  'kind',
  'prompt',
  'inputSchema',
  '__proto__',
  'constructor',
];
const json = fc.jsonValue({ maxDepth: 3 });
const field = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...FIELDS) }, { weight: 1, arbitrary: anyText(10) });

const EXECUTION = { conversationId: '$conversation', provider: 'scripted', input: { text: 'hello fuzz' } };

/** Valid bodies of each POST route, to be bent a little: deep validation paths need a mostly right body. */
const TEMPLATES: Record<string, Record<string, unknown>[]> = {
  conversations: [{}, { title: 'fuzz', metadata: { a: 1 } }],
  executions: [
    EXECUTION,
    { ...EXECUTION, idempotencyKey: 'fuzz-key-1' },
    { ...EXECUTION, requiredCapabilities: ['output.text.stream', 'input.image'] },
    { ...EXECUTION, provider: 'nope' },
    { ...EXECUTION, conversationId: '$execution' },
    { ...EXECUTION, requiredCapabilities: ['output.text.stream'], config: { script: [{ type: 'text', text: 'a' }] }, idempotencyKey: 'k' },
    {
      ...EXECUTION,
      config: {
        script: [
          { type: 'artifact', name: 'a', mediaType: 'text/plain' },
          { type: 'providerEvent', name: 'n' },
        ],
        cleanup: 'ok',
      },
    },
  ],
  cancel: [{}, { reason: 'fuzz' }],
  respond: [{ decision: 'approve', comment: 'ok' }, { decision: 'deny' }, { value: { n: 1 } }, { value: 'x' }],
};
const ALL_TEMPLATES = Object.values(TEMPLATES).flat();

/** The templates for a route (Fastify's path), every template for any other route. */
const templatesFor = (url: string) =>
  url.endsWith('::respond')
    ? TEMPLATES.respond
    : url.endsWith('::cancel')
      ? TEMPLATES.cancel
      : url === '/v1/executions'
        ? TEMPLATES.executions
        : url === '/v1/conversations'
          ? TEMPLATES.conversations
          : ALL_TEMPLATES;

/** A template as is, or with one field replaced, added or dropped, possibly one level down. */
const bentTemplate = (templates: Record<string, unknown>[]) =>
  fc.tuple(fc.constantFrom(...templates), field, json, fc.constantFrom('keep', 'set', 'drop', 'nested', 'nested')).map(([template, key, value, how]) => {
    // A JSON copy, not structuredClone: that one comes from outside jest's sandbox, and so would the
    // Object.prototype a key like `__proto__` reaches through it.
    const body = JSON.parse(JSON.stringify(template)) as Record<string, unknown>;
    const keys = Object.keys(body);
    const target = keys.length > 0 && how !== 'set' ? keys[key.length % keys.length] : key;
    // defineProperty: `__proto__` becomes an own key, as JSON.parse makes it on the server.
    const put = (object: object, name: string) => Object.defineProperty(object, name, { value, enumerable: true, writable: true, configurable: true });
    // Only an own value is nested into: `body['__proto__']` is Object.prototype, and defining a key
    // on it polluted every object of the jest worker (the Responses suites' schema checks saw it).
    const inner = Object.hasOwn(body, target) ? body[target] : undefined;
    if (how === 'drop') delete body[target];
    else if (how === 'nested' && inner && typeof inner === 'object' && !Array.isArray(inner)) put(inner, key);
    else if (how !== 'keep') put(body, target);
    return JSON.stringify(body);
  });

/** A request body for a route: bent valid bodies, random objects, any JSON, or bytes that are not JSON. */
export const bodyFor = (url: string) =>
  fc.oneof(
    { weight: 6, arbitrary: bentTemplate(templatesFor(url)) },
    { weight: 2, arbitrary: fc.dictionary(field, json, { maxKeys: 5 }).map((o) => JSON.stringify(o)) },
    { weight: 1, arbitrary: json.map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: anyText(40) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '',
        ' ',
        '{',
        '{"a":',
        'null',
        '[]',
        '"x"',
        '1',
        '{"__proto__":{"polluted":1}}',
        '{"constructor":{"prototype":{"polluted":1}}}',
        '{"a":1}{"b":2}',
        '\u0000',
        '{"title":"\\ud800"}',
      ),
    },
  );

export const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
