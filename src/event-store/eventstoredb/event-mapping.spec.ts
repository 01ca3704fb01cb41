import type { AllStreamResolvedEvent } from '@eventstore/db-client';
import { isSystemEvent, numberToPosition, positionToNumber, toEventData, toStoredEvent } from './event-mapping';

/** Shapes a recorded event the way @eventstore/db-client's convertGrpcEvent does for a JSON event. */
function recorded(over: Partial<Record<string, unknown>> = {}): AllStreamResolvedEvent {
  return {
    event: {
      streamId: 'execution-1',
      id: '0d6c3c2e-0000-4000-8000-000000000000',
      isJson: true,
      revision: 4n,
      type: 'run.queued',
      created: new Date('2025-03-01T10:00:00.123Z'),
      data: { a: 1 },
      metadata: { tenantId: 't', schemaVersion: 2, correlationId: 'c', causationId: null, occurredAt: '2025-01-01T00:00:00.000Z' },
      position: { commit: 1234n, prepare: 1234n },
      ...over,
    },
  } as AllStreamResolvedEvent;
}

describe('EventStoreDB event mapping', () => {
  it('writes the envelope metadata, the $-names the server understands, and occurredAt', () => {
    const data = toEventData(
      { type: 'run.queued', data: { a: 1 }, metadata: { tenantId: 't', schemaVersion: 1, correlationId: 'c', causationId: null } },
      '2025-05-05T05:05:05.005Z',
    );
    expect(data).toMatchObject({ type: 'run.queued', contentType: 'application/json', data: { a: 1 } });
    expect(data.metadata).toEqual({
      tenantId: 't',
      schemaVersion: 1,
      correlationId: 'c',
      causationId: null,
      occurredAt: '2025-05-05T05:05:05.005Z',
      $correlationId: 'c',
    });
  });

  it("sends the caller's event id, or a fresh UUIDv7 per event when there is none", () => {
    const meta = { tenantId: 't', schemaVersion: 1, correlationId: null, causationId: null };
    const id = '01890a5d-ac96-774b-bcce-b302099a8057';
    expect(toEventData({ id, type: 'x', data: {}, metadata: meta }, '2025-01-01T00:00:00.000Z').id).toBe(id);
    const fresh = [1, 2].map(() => toEventData({ type: 'x', data: {}, metadata: meta }, '2025-01-01T00:00:00.000Z').id);
    expect(fresh[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(fresh[1]).not.toBe(fresh[0]);
  });

  it('refuses a payload JSON cannot encode before it reaches the client', () => {
    const meta = { tenantId: 't', schemaVersion: 1, correlationId: null, causationId: null };
    expect(() => toEventData({ type: 'x', data: { n: BigInt(1) }, metadata: meta }, '2025-01-01T00:00:00.000Z')).toThrow(TypeError);
  });

  it('reads back exactly the port envelope', () => {
    expect(toStoredEvent(recorded())).toEqual({
      id: '0d6c3c2e-0000-4000-8000-000000000000',
      streamId: 'execution-1',
      revision: 4,
      position: 1234,
      type: 'run.queued',
      data: { a: 1 },
      metadata: { tenantId: 't', schemaVersion: 2, correlationId: 'c', causationId: null },
      occurredAt: '2025-01-01T00:00:00.000Z',
    });
  });

  it('falls back to the server timestamp for events without occurredAt', () => {
    const event = recorded({ metadata: { tenantId: 't', schemaVersion: 1, correlationId: null, causationId: null } });
    expect(toStoredEvent(event).occurredAt).toBe('2025-03-01T10:00:00.123Z');
  });

  it('round-trips positions and refuses ones a single number cannot address', () => {
    expect(positionToNumber(numberToPosition(987654321), 'x')).toBe(987654321);
    expect(() => positionToNumber({ commit: 200n, prepare: 100n }, 'x')).toThrow(/legacy TCP transaction/);
    expect(() => positionToNumber({ commit: 2n ** 64n - 1n, prepare: 2n ** 64n - 1n }, 'x')).toThrow(/single number/);
    expect(() => positionToNumber(undefined, 'x')).toThrow(/22\.6/);
  });

  it('refuses events Runledger did not write, naming them', () => {
    expect(() => toStoredEvent(recorded({ isJson: false, data: new Uint8Array([1]) }))).toThrow(/0d6c3c2e.*not written by Runledger/);
    expect(() => toStoredEvent(recorded({ metadata: undefined }))).toThrow(/not written by Runledger/);
  });

  it('tells system events and system streams apart from ours', () => {
    expect(isSystemEvent(recorded())).toBe(false);
    expect(isSystemEvent(recorded({ type: '$metadata' }))).toBe(true);
    expect(isSystemEvent(recorded({ streamId: '$stats-127.0.0.1:2113', type: 'statsCollected' }))).toBe(true);
  });
});
