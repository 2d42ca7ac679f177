// The client address a request is counted against (rate limits, lockout). `X-Forwarded-For` is believed
// only through proxies listed in TRUSTED_PROXY_CIDRS, and only for the hops those proxies appended: walking
// from the right, each trusted hop vouches for the address to its left; the first untrusted one is the client.
import { BlockList, isIP } from 'node:net';

export class TrustedProxies {
  private readonly list = new BlockList();
  readonly size: number;

  /** Throws on a CIDR that does not parse (settings report it). */
  constructor(cidrs: readonly string[]) {
    for (const cidr of cidrs) {
      const [address, bits] = cidr.split('/');
      const family = isIP(address);
      const prefix = bits === undefined ? (family === 6 ? 128 : 32) : Number(bits);
      if (!family || !Number.isInteger(prefix) || prefix < 0 || prefix > (family === 6 ? 128 : 32))
        throw new Error(`${JSON.stringify(cidr)} is not an address or CIDR`);
      this.list.addSubnet(address, prefix, family === 6 ? 'ipv6' : 'ipv4');
    }
    this.size = cidrs.length;
  }

  has(address: string): boolean {
    const plain = unmapped(address);
    const family = isIP(plain);
    return family !== 0 && this.list.check(plain, family === 6 ? 'ipv6' : 'ipv4');
  }
}

export function clientIp(
  peer: string | undefined,
  forwardedFor: string | string[] | undefined,
  trusted: TrustedProxies,
): string {
  let client = unmapped(peer ?? 'unknown');
  if (!trusted.size || !trusted.has(client) || forwardedFor === undefined) return client;
  const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor)
    .split(',')
    .map((h) => h.trim())
    .filter(Boolean);
  while (hops.length && trusted.has(client)) {
    const hop = unmapped(hops.pop()!);
    if (!isIP(hop)) break;
    client = hop;
  }
  return client;
}

/** `::ffff:10.0.0.1` is the IPv4 address 10.0.0.1. */
function unmapped(address: string): string {
  return address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}
