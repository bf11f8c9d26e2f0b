// Where a notification channel may send: public addresses only (after DNS resolution), plus an operator's allow-list.
import { lookup } from 'node:dns/promises';
import { shownName } from '@agent-tasks/schema';
import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Range = [Address, number];

/** Addresses and CIDR ranges of internal receivers an operator allows (`AGENT_TASKS_CHANNEL_ALLOWLIST`). */
export interface AllowList {
  ranges: Range[];
}

/** Parses `127.0.0.1, 10.1.0.0/16, ::1`; throws with the entry that is neither an address nor a CIDR range. */
export function parseAllowList(entries: readonly string[]): AllowList {
  const ranges: Range[] = [];
  for (const entry of entries) {
    const text = entry.trim();
    if (!text) continue;
    if (text.includes('/')) ranges.push(ipaddr.parseCIDR(text));
    else {
      const address = ipaddr.parse(text);
      ranges.push([address, address.kind() === 'ipv4' ? 32 : 128]);
    }
  }
  return { ranges };
}

export const isAllowListEntry = (text: string) => (text.includes('/') ? ipaddr.isValidCIDR(text) : ipaddr.isValid(text));

/** IPv4-compatible IPv6 (::a.b.c.d), deprecated and not covered by ipaddr.js's ranges, routes to IPv4 on some systems. */
const ipv4Compatible = ipaddr.parseCIDR('::/96');

const rangeWords: Record<string, string> = {
  loopback: 'a loopback address',
  private: 'a private address',
  linkLocal: 'a link-local address',
  uniqueLocal: 'a unique-local address',
  carrierGradeNat: 'a carrier-grade NAT address',
  unspecified: 'an unspecified address',
  multicast: 'a multicast address',
  broadcast: 'the broadcast address',
};

/**
 * Why a resolved address may not be reached — the address as it is meant (IPv4-mapped IPv6 unwrapped) and what it is —
 * or null when it may: public unicast addresses and allow-listed ones pass.
 */
export function addressRefusal(text: string, allow: AllowList): { address: string; what: string } | null {
  let address: Address;
  try {
    address = ipaddr.parse(text);
  } catch {
    return { address: text, what: 'not an IP address' };
  }
  const plain =
    address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress() ? (address as ipaddr.IPv6).toIPv4Address() : address;
  for (const candidate of [address, plain]) {
    if (allow.ranges.some(([net, bits]) => net.kind() === candidate.kind() && candidate.match(net, bits))) return null;
  }
  let range = plain.range();
  if (range === 'unicast' && plain.kind() === 'ipv6' && (plain as ipaddr.IPv6).match(ipv4Compatible)) range = 'reserved';
  if (range === 'unicast') return null;
  return { address: plain.toString(), what: rangeWords[range] ?? 'a reserved address' };
}

export interface Resolved {
  address: string;
  family: 4 | 6;
}

export type Resolver = (host: string) => Promise<Resolved[]>;

export const systemResolver: Resolver = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((r) => ({ address: r.address, family: r.family === 6 ? 6 : 4 }));

/** The host of a URL as an address or a name: `[::1]` → `::1`. */
const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1');

const dnsReasons: Record<string, string> = {
  ENOTFOUND: 'host name not found',
  EAI_AGAIN: 'lookup failed, try again later',
  ENODATA: 'host name has no address',
};

/**
 * Resolves a receiver URL to the one address to connect to: refused when it carries credentials, does not resolve,
 * or any of its addresses is not public (and not allow-listed) — a name with one internal address is refused whole.
 */
export async function resolveReceiver(
  raw: string,
  allow: AllowList,
  resolve: Resolver = systemResolver,
): Promise<{ ok: true; url: URL; host: string; address: Resolved } | { ok: false; error: string }> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, error: 'not a URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, error: 'must be an http(s) URL' };
  if (url.username || url.password) return { ok: false, error: 'must not contain a user name or password' };
  const host = hostOf(url);
  let addresses: Resolved[];
  if (ipaddr.isValid(host)) addresses = [{ address: host, family: host.includes(':') ? 6 : 4 }];
  else {
    try {
      addresses = await resolve(host);
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      return {
        ok: false,
        error: `host ${shownName(host)} could not be resolved (${(typeof code === 'string' && dnsReasons[code]) || 'lookup failed'})`,
      };
    }
  }
  if (addresses.length === 0) return { ok: false, error: `host ${shownName(host)} could not be resolved (host name has no address)` };
  for (const a of addresses) {
    const refusal = addressRefusal(a.address, allow);
    if (refusal) {
      const said =
        host === a.address ? `${refusal.address} is ${refusal.what}` : `${shownName(host)} resolves to ${refusal.address}, ${refusal.what}`;
      return { ok: false, error: `must point to a public address: ${said}` };
    }
  }
  return { ok: true, url, host, address: addresses[0] as Resolved };
}
