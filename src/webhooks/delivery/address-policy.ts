import { BlockList, isIP } from 'node:net';
import { lookup as dnsLookup, LookupAddress } from 'node:dns';

/**
 * Loopback, private, link-local, carrier-grade NAT and unspecified ranges: a webhook URL whose
 * host resolves into one would let a tenant make this service call its own network
 * (docs/webhooks.md#security).
 */
const INTERNAL = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
] as const) {
  INTERNAL.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
] as const) {
  INTERNAL.addSubnet(net, prefix, 'ipv6');
}

/** Whether `address` (an IP literal) is internal; IPv4-mapped IPv6 addresses are judged as IPv4. */
export function isInternalAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return INTERNAL.check(mapped[1], 'ipv4');
  const family = isIP(address);
  if (family === 0) return true;
  return INTERNAL.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** The URL's host without IPv6 brackets. */
export const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1');

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for `http(s).request` that refuses internal addresses: the check happens on the
 * address actually connected to, so a name that resolved to a public address when the endpoint
 * was created and to an internal one now (DNS rebinding) is still refused.
 */
export function guardedLookup(allowPrivate: boolean) {
  return (hostname: string, options: { all?: boolean }, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const allowed = allowPrivate ? addresses : addresses.filter((entry) => !isInternalAddress(entry.address));
      if (allowed.length === 0) {
        const refused = Object.assign(new Error(`${hostname} resolves only to loopback, private or link-local addresses`), { code: 'EADDRNOTALLOWED' });
        return callback(refused, []);
      }
      if (options.all) return callback(null, allowed);
      callback(null, allowed[0].address, allowed[0].family);
    });
  };
}

/** What resolving the host answers now: null when it may be called, else why not. */
export async function addressProblem(url: URL, allowPrivate: boolean): Promise<string | null> {
  if (allowPrivate) return null;
  const host = hostOf(url);
  if (isIP(host) !== 0) return isInternalAddress(host) ? `url host ${host} is a loopback, private or link-local address` : null;
  const addresses = await new Promise<LookupAddress[] | null>((resolve) => dnsLookup(host, { all: true }, (error, found) => resolve(error ? null : found)));
  if (!addresses || addresses.length === 0) return `url host ${host} does not resolve`;
  if (addresses.some((entry) => isInternalAddress(entry.address))) return `url host ${host} resolves to a loopback, private or link-local address`;
  return null;
}
