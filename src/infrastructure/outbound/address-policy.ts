import ipaddr from 'ipaddr.js';
import { isIP } from 'node:net';

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Cidr = [Address, number];

/** RFC 4291 global unicast: the only IPv6 space routed on the public internet. */
const GLOBAL_UNICAST_V6: Cidr = [ipaddr.IPv6.parse('2000::'), 3];
/** `::a.b.c.d`, deprecated: ipaddr.js calls it unicast, we do not. */
const IPV4_COMPATIBLE_V6: Cidr = [ipaddr.IPv6.parse('::'), 96];

/** Public unicast unless `OUTBOUND_ALLOW_CIDRS` lists it; canonical addresses, never user text. */
export class AddressPolicy {
  private readonly allowed: Cidr[];

  constructor(allowCidrs: readonly string[] = []) {
    this.allowed = allowCidrs.map((cidr) => ipaddr.parseCIDR(cidr));
  }

  /** `address` is an IPv4 or IPv6 literal, no brackets. */
  isAllowed(address: string): boolean {
    const parsed = parseCanonical(address);
    if (!parsed) return false;
    const effective = unwrapMapped(parsed);
    if (this.allowed.some((cidr) => matches(effective, cidr) || matches(parsed, cidr))) return true;
    return isPublicAddress(effective);
  }
}

/** No special-purpose range, nor an IPv6 form embedding IPv4 (mapped, NAT64, 6to4, Teredo). */
export function isPublicAddress(address: Address): boolean {
  if (address.kind() === 'ipv4') return address.range() === 'unicast';
  const v6 = address as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return isPublicAddress(v6.toIPv4Address());
  if (v6.match(IPV4_COMPATIBLE_V6)) return false;
  return v6.range() === 'unicast' && v6.match(GLOBAL_UNICAST_V6);
}

/** Odd spellings are not accepted. */
export function parseCanonical(address: string): Address | null {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  try {
    // net.isIP refuses `0x7f.1` or `2130706433`, which ipaddr.js would read as loopback.
    switch (isIP(bare)) {
      case 4:
        return ipaddr.IPv4.parse(bare);
      case 6:
        // ipaddr.js reads `::a.b.c.d` as IPv4-mapped; the WHATWG serializer writes hex groups.
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
