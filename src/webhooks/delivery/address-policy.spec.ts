import { guardedLookup, isInternalAddress } from './address-policy';

describe('the address rules (docs/webhooks.md#security)', () => {
  it('knows loopback, private, link-local and unspecified addresses', () => {
    for (const address of ['127.0.0.1', '127.255.0.9', '::1', '::', '0.0.0.0', '::ffff:127.0.0.1', 'not-an-ip']) {
      expect(isInternalAddress(address)).toBe(true);
    }
  });

  it('refuses at connect time a name that resolves to loopback (so a rebinding answer cannot pass)', async () => {
    const lookup = guardedLookup(false);
    const error = await new Promise<Error | null>((resolve) => lookup('localhost', {}, (e) => resolve(e)));
    expect(error?.message).toMatch(/loopback, private or link-local/);
    const allowed = await new Promise<string>((resolve) => guardedLookup(true)('localhost', {}, (_e, address) => resolve(address as string)));
    expect(['127.0.0.1', '::1']).toContain(allowed);
  });
});
