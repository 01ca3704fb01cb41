import { toRows } from '../event-store/sqlite/group-commit';
import { toNewEvents } from './execution-stream';

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
