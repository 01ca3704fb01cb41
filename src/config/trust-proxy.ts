import { isIP } from 'node:net';

/** Fastify's own `trustProxy` option: which proxies' X-Forwarded-For names the client. */
export type TrustProxy = boolean | number | string[];

const CIDR = /^(.+)\/(\d{1,3})$/;

function isAddressOrCidr(entry: string): boolean {
  const cidr = CIDR.exec(entry);
  const family = isIP(cidr ? cidr[1] : entry);
  if (family === 0) return false;
  return !cidr || Number(cidr[2]) <= (family === 4 ? 32 : 128);
}

/**
 * TRUST_PROXY: `true` (trust every hop: only behind a proxy that overwrites X-Forwarded-For),
 * a hop count (`1`: the load balancer in front), or addresses and CIDRs of the proxies
 * (`10.0.0.0/8,192.168.1.5`). Unset or `false`: the socket's peer is the client, and a client's
 * own X-Forwarded-For is ignored, so it cannot choose the address it is counted under.
 */
export function readTrustProxy(raw: string | undefined, problems: string[]): TrustProxy {
  if (raw === undefined || raw.trim() === '' || raw.trim() === 'false') return false;
  const value = raw.trim();
  if (value === 'true') return true;
  if (/^\d+$/.test(value)) {
    if (Number(value) >= 1 && Number(value) <= 100) return Number(value);
  } else {
    const entries = value.split(',').map((entry) => entry.trim());
    if (entries.every(isAddressOrCidr)) return entries;
  }
  problems.push(`TRUST_PROXY must be true, false, a hop count from 1 to 100, or addresses/CIDRs separated by commas (got "${raw}")`);
  return false;
}
