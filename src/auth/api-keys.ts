import { timingSafeEqual } from 'node:crypto';
import { ApiKeyEntry, keyDigest } from './auth-config';

/**
 * The configured keys. A presented token is hashed and compared with every key's digest: equal
 * lengths make `timingSafeEqual` usable, and visiting every entry without an early exit keeps the
 * time the same whether a key matched, which one, or none did.
 */
export class ApiKeys {
  constructor(private readonly entries: readonly ApiKeyEntry[]) {}

  get size(): number {
    return this.entries.length;
  }

  /** The tenant of the key that equals `token`, or null. */
  tenantOf(token: string): string | null {
    const digest = keyDigest(token);
    let tenant: string | null = null;
    for (const entry of this.entries) {
      if (timingSafeEqual(entry.digest, digest)) tenant = entry.tenant;
    }
    return tenant;
  }
}
