// Who a request comes from: the socket's peer, or, when that peer is a configured trusted proxy, the client it names in
// X-Forwarded-For; and the group an address is counted in by the brake on failed authentications (IPv6 by /64).
import ipaddr from 'ipaddr.js';
import { type AllowList, parseAllowList } from '../adapters/receiver-address.ts';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

const parse = (text: string | undefined): Address | null => {
  if (!text) return null;
  try {
    const address = ipaddr.parse(text.trim());
    // ::ffff:a.b.c.d (an IPv4 client on a dual-stack socket) is that IPv4 address.
    return address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress() ? (address as ipaddr.IPv6).toIPv4Address() : address;
  } catch {
    return null;
  }
};

const within = (address: Address, list: AllowList) =>
  list.ranges.some(([net, bits]) => net.kind() === address.kind() && address.match(net, bits));

/**
 * Reads the client's address of a request. Without trusted proxies (the default) it is the socket's peer and
 * X-Forwarded-For is ignored (anyone can send it). From a trusted proxy, X-Forwarded-For is read from its right end
 * (what the nearest proxy appended) past the entries that are trusted proxies themselves; the first other entry is the
 * client. An entry that is no IP address ends the walk: the last trusted hop is taken as the client.
 */
export function clientAddressReader(trustedProxies: readonly string[]) {
  const trusted = parseAllowList(trustedProxies);
  const none = trusted.ranges.length === 0;
  return (peer: string | undefined, forwardedFor: string | string[] | undefined): string | undefined => {
    if (none || forwardedFor === undefined) return peer;
    let client = parse(peer);
    if (!client || !within(client, trusted)) return peer;
    const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor).split(',');
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = parse(hops[i]);
      if (!hop) break;
      client = hop;
      if (!within(hop, trusted)) break;
    }
    return client.toString();
  };
}

/**
 * The bucket an address's failed authentications are counted in: IPv4 addresses by their first `ipv4Bits` bits (32:
 * each address alone), IPv6 by their first `ipv6Bits` (64: one customer's network, which hands out as many addresses
 * as it likes). Text that is no IP address is its own bucket.
 */
export function addressGroup(address: string | undefined, ipv4Bits: number, ipv6Bits: number): string {
  const parsed = parse(address);
  if (!parsed) return address ?? 'unknown';
  const bits = parsed.kind() === 'ipv4' ? ipv4Bits : ipv6Bits;
  const network = ipaddr.fromByteArray(
    parsed.toByteArray().map((byte, i) => {
      const keep = Math.max(0, Math.min(8, bits - i * 8));
      return byte & ((0xff << (8 - keep)) & 0xff);
    }),
  );
  return `${network.toString()}/${bits}`;
}
