import type { StoredEvent } from './event-store';
import { StoredRow, dataJsonOf, metadataJsonOf } from './stored-row';
import { upcast } from './upcasters';
import { envelopeJson, toEnvelope } from '../executions/execution-stream';
import { fromWire, toWire } from '../read-models/projector-messages';

const metadata = { tenantId: 't', schemaVersion: 2, correlationId: 'e1', causationId: null } as StoredEvent['metadata'];
const data = { text: 'héllo "quoted" \\ \u2028 😀', nested: { list: [1, 2.5, null, true], empty: {} } };

const plain = (overrides: Partial<StoredEvent> = {}): StoredEvent => ({
  id: 'id-1',
  streamId: 'execution-e1',
  revision: 4,
  position: 41,
  type: 'output.text.done',
  data,
  metadata,
  occurredAt: '2026-12-03T10:00:00.000Z',
  ...overrides,
});

const row = (type = 'output.text.done', json = JSON.stringify(data)) =>
  new StoredRow('id-1', 'execution-e1', 4, 41, type, json, metadata, '2026-12-03T10:00:00.000Z');

describe('StoredRow', () => {
  it('is the event a plain read gave: the same fields, equal, serialized in the same key order', () => {
    expect(row()).toEqual(plain());
    expect(JSON.stringify(row())).toBe(JSON.stringify(plain()));
    expect(Object.keys(row())).toEqual(Object.keys(plain()));
  });

  it('parses its data only when it is read, once', () => {
    const unread = row('output.text.delta', '{not json');
    expect(envelopeJson(unread)).toContain('"data":{not json}');
    expect(() => unread.data).toThrow(SyntaxError);
    const read = row();
    expect(read.data).toBe(read.data);
  });

  it('parses metadata given as its text only when it is read, once; upcasting needs only the schema version column', () => {
    const text = (json: string, schemaVersion: number) =>
      new StoredRow('id-1', 'execution-e1', 4, 41, 'run.completed', '{"usage":null}', json, '2026-12-03T10:00:00.000Z', schemaVersion);
    const unread = text('{not json', 2);
    expect(StoredRow.schemaVersionOf(unread)).toBe(2);
    expect(upcast(unread)).toBe(unread);
    expect(metadataJsonOf(unread)).toBe('{not json');
    expect(() => unread.metadata).toThrow(SyntaxError);
    // A version-1 row is upcast by its column's version, and comes out at version 2.
    const old = new StoredRow('id-1', 'execution-e1', 4, 41, 'run.completed', '{}', JSON.stringify({ ...metadata, schemaVersion: 1 }), 'now', 1);
    expect(upcast(old).metadata.schemaVersion).toBe(2);
    expect(upcast(old).data).toEqual({ usage: null });
    const read = text(JSON.stringify(metadata), 2);
    expect(read.metadata).toEqual(metadata);
    expect(read.metadata).toBe(read.metadata);
    expect(metadataJsonOf(read)).toBe(JSON.stringify(metadata));
    expect({ ...text(JSON.stringify(metadata), 2) }.metadata).toEqual(metadata);
    expect(structuredClone(text(JSON.stringify(metadata), 2))).toEqual(plain({ type: 'run.completed', data: { usage: null } }));
  });

  it('reads as a plain event when copied, cloned or serialized', () => {
    expect({ ...row() }).toEqual(plain());
    expect(structuredClone(row())).toEqual(plain());
    expect(JSON.parse(JSON.stringify(row()))).toEqual(JSON.parse(JSON.stringify(plain())));
  });

  it('hands out its stored data text, and serializes events that have none', () => {
    // Stored with other spacing than JSON.stringify would give: the text itself comes back.
    expect(dataJsonOf(row('output.text.done', '{"a": 1}'))).toBe('{"a": 1}');
    expect(dataJsonOf(plain())).toBe(JSON.stringify(data));
  });

  it('never lends its text to a copy with other data (an upcast spreads the event)', () => {
    const copy = { ...row(), data: { other: true } };
    expect(dataJsonOf(copy)).toBe('{"other":true}');
    const ended = upcast(row('run.failed', '{"error":{"code":"X","message":"m"}}'));
    expect(ended.data).toEqual({ error: { code: 'X', message: 'm' }, usage: null });
    expect(dataJsonOf(ended)).toBe(JSON.stringify(ended.data));
  });

  it('gives the envelope text JSON.stringify gives, from a row and from a plain event', () => {
    expect(envelopeJson(row())).toBe(JSON.stringify(toEnvelope(row())));
    expect(envelopeJson(plain({ type: 'weird "type"' }))).toBe(JSON.stringify(toEnvelope(plain({ type: 'weird "type"' }))));
    expect(JSON.parse(envelopeJson(row()))).toEqual(toEnvelope(plain()));
  });

  it('crosses to the projector thread as text and comes back as the same event', () => {
    const wire = toWire(row());
    expect(wire).not.toHaveProperty('data');
    expect(wire.dataJson).toBe(JSON.stringify(data));
    const back = fromWire(structuredClone(wire));
    expect(back).toEqual(plain());
    expect(dataJsonOf(back)).toBe(JSON.stringify(data));
    expect(fromWire(structuredClone(toWire(plain())))).toEqual(plain());
  });
});
