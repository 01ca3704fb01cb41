import { toRows } from '../event-store/sqlite/group-commit';
import { ExecutionEvent, RecordedExecutionEvent } from './domain/execution-events';
import { evolve, fold } from './domain/execution-state';
import { foldAppended, toNewEvents } from './execution-stream';

const delta = { type: 'output.text.delta' as const, data: { delta: 'x' } };

describe('toNewEvents', () => {
  it("shares one frozen metadata object per execution and tenant, whose kept text is what the event's row stores", () => {
    const [a] = toNewEvents('x1', [delta], { tenantId: 't', occurredAt: 'now' });
    const [b, c] = toNewEvents('x1', [delta, delta], { tenantId: 't', occurredAt: 'later' });
    expect(b.metadata).toBe(a.metadata);
    expect(c.metadata).toBe(a.metadata);
    expect(Object.isFrozen(a.metadata)).toBe(true);
    const [row] = toRows([a]);
    expect(row.metadata).toBe(JSON.stringify(a.metadata));
    expect(JSON.parse(row.metadata)).toEqual({
      tenantId: 't',
      schemaVersion: expect.any(Number),
      correlationId: 'x1',
      causationId: null,
      instanceId: expect.any(String),
    });
  });

  it('makes its own metadata for another execution, another tenant, or a causation', () => {
    const [a] = toNewEvents('x2', [delta], { tenantId: 't', occurredAt: 'now' });
    const [other] = toNewEvents('x3', [delta], { tenantId: 't', occurredAt: 'now' });
    const [tenant] = toNewEvents('x2', [delta], { tenantId: 'u', occurredAt: 'now' });
    const [caused] = toNewEvents('x2', [delta], { tenantId: 't', occurredAt: 'now', causationId: 'c1' });
    for (const own of [other, tenant, caused]) expect(own.metadata).not.toBe(a.metadata);
    expect(other.metadata.correlationId).toBe('x3');
    expect(tenant.metadata.tenantId).toBe('u');
    expect(caused.metadata).toMatchObject({ tenantId: 't', correlationId: 'x2', causationId: 'c1' });
    expect(JSON.parse(toRows([caused])[0].metadata).causationId).toBe('c1');
    expect(toNewEvents('x2', [delta], { tenantId: 'u', occurredAt: 'now' })[0].metadata).toBe(tenant.metadata);
  });
});

describe('foldAppended', () => {
  it('gives what folding each event gives, though it folds only the last of a run of streamed events', () => {
    const at = '2026-09-02T10:00:00.000Z';
    const queued = {
      type: 'run.queued' as const,
      data: { conversationId: 'c', provider: 'scripted', input: { text: 'hi' }, requiredCapabilities: [], config: {}, idempotencyKey: null },
    };
    const loaded = { state: fold([{ ...queued, sequence: 1, occurredAt: at }], 'x9')!, tenantId: 't', owner: null, revision: 0 };
    const event = { type: 'provider.event' as const, data: { namespace: 'scripted', name: 'note', payload: {} } };
    const action = { type: 'action.required' as const, data: { actionId: 'a', kind: 'approval' as const, prompt: 'ok?', inputSchema: null, tool: null } };
    const appended: ExecutionEvent[] = [{ type: 'run.started', data: { provider: 'scripted' } }, delta, delta, event, delta, action, delta, delta];
    const timed = appended.map((e, k) => ({ event: e, at: `2026-09-02T10:00:0${k}.000Z` }));
    const oneByOne = timed.reduce(
      (state, { event, at: occurredAt }, k) => evolve(state, { ...event, sequence: k + 2, occurredAt } as RecordedExecutionEvent, 'x9'),
      loaded.state,
    );
    const folded = foldAppended(loaded, timed);
    expect(folded.state).toEqual(oneByOne);
    expect(folded.state.lastSequence).toBe(9);
    expect(folded.revision).toBe(8);
    expect(foldAppended(loaded, timed.slice(0, 3)).state).toEqual({ ...oneByOne, status: 'running', actions: [], lastSequence: 4 });
  });
});
