import ipaddr from 'ipaddr.js';
import { isIP } from 'node:net';

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Cidr = [Address, number];

/** The only IPv6 space that is routed on the public internet (RFC 4291 global unicast). */
const GLOBAL_UNICAST_V6: Cidr = [ipaddr.IPv6.parse('2000::'), 3];
/** IPv4-compatible IPv6 (`::a.b.c.d`, deprecated): ipaddr.js calls it unicast, we do not. */
const IPV4_COMPATIBLE_V6: Cidr = [ipaddr.IPv6.parse('::'), 96];

/**
 * Decides which addresses a request to a user-given URL (media by link, webhook receivers) may
 * connect to: public unicast only, unless `OUTBOUND_ALLOW_CIDRS` lists the range. Works
 * on parsed bytes: callers hand over addresses in the canonical form that the URL parser or the
 * resolver produced, never raw user text.
 */
export class AddressPolicy {
  private readonly allowed: Cidr[];

  constructor(allowCidrs: readonly string[] = []) {
    this.allowed = allowCidrs.map((cidr) => ipaddr.parseCIDR(cidr));
  }

  /** True when a connection to `address` (an IPv4 or IPv6 literal, no brackets) is allowed. */
  isAllowed(address: string): boolean {
    const parsed = parseCanonical(address);
    if (!parsed) return false;
    const effective = unwrapMapped(parsed);
    if (this.allowed.some((cidr) => matches(effective, cidr) || matches(parsed, cidr))) return true;
    return isPublicAddress(effective);
  }
}

/**
 * Whether an address is public unicast: not loopback, private, link-local, CGNAT, multicast,
 * unspecified, broadcast, reserved or documentation space, and not an IPv6 form that embeds or
 * translates to IPv4 (mapped, compatible, NAT64, 6to4, Teredo).
 */
export function isPublicAddress(address: Address): boolean {
  if (address.kind() === 'ipv4') return address.range() === 'unicast';
  const v6 = address as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return isPublicAddress(v6.toIPv4Address());
  if (v6.match(IPV4_COMPATIBLE_V6)) return false;
  return v6.range() === 'unicast' && v6.match(GLOBAL_UNICAST_V6);
}

/** Parses an IP literal that is already in a standard notation; odd spellings are not accepted. */
export function parseCanonical(address: string): Address | null {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  try {
    // net.isIP only knows dotted-quad IPv4 (no leading zeros) and standard IPv6, so `0x7f.1`,
    // `017700000001` or `2130706433` never reach ipaddr.js, which would read them as loopback.
    switch (isIP(bare)) {
      case 4:
        return ipaddr.IPv4.parse(bare);
      case 6:
        // ipaddr.js reads `::a.b.c.d` as IPv4-mapped; the WHATWG serializer writes plain hex groups.
        return ipaddr.IPv6.parse(new URL(`http://[${bare}]/`).hostname.slice(1, -1));
      default:
        return null;
    }
  } catch {
    return null;
  }
}

function unwrapMapped(address: Address): Address {
  if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()) {
    return (address as ipaddr.IPv6).toIPv4Address();
  }
  return address;
}

function matches(address: Address, [range, bits]: Cidr): boolean {
  return address.kind() === range.kind() && address.match(range, bits);
}
