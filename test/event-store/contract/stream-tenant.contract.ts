import { ContractContext, ev, evs, streamId } from './helpers';

/** streamTenant: who owns a stream, answered without reading its first event's data. */
export function describeStreamTenantContract(ctx: ContractContext): void {
  describe('streamTenant', () => {
    it('is null for a stream that does not exist', async () => {
      expect(await ctx.store.streamTenant(streamId('tenant-unknown'))).toBeNull();
    });

    it("is the tenant in the metadata of the stream's first event, however large its data", async () => {
      const s = streamId('tenant-first');
      const first = ev('test.first', { blob: 'x'.repeat(200_000) });
      first.metadata = { ...first.metadata, tenantId: 'tenant-owner' };
      await ctx.store.append(s, [first], 'no_stream');
      expect(await ctx.store.streamTenant(s)).toBe('tenant-owner');

      // Later events never change the answer, nor do streams whose ids extend this one.
      await ctx.store.append(s, evs(3), 0);
      const other = ev('test.other');
      other.metadata = { ...other.metadata, tenantId: 'tenant-other' };
      await ctx.store.append(`${s}-longer`, [other], 'no_stream');
      expect(await ctx.store.streamTenant(s)).toBe('tenant-owner');
      expect(await ctx.store.streamTenant(`${s}-longer`)).toBe('tenant-other');
    });

    it("is the first event's tenant when the first append carries several, and when it is first asked after later appends", async () => {
      const withTenant = (tenantId: string) => {
        const event = ev('test.tenant');
        event.metadata = { ...event.metadata, tenantId };
        return event;
      };
      const s = streamId('tenant-batch');
      await ctx.store.append(s, [withTenant('tenant-first'), withTenant('tenant-second')], 'no_stream');
      await ctx.store.append(s, [withTenant('tenant-third')], 1);
      expect(await ctx.store.streamTenant(s)).toBe('tenant-first');
    });
  });
}
