import { AddressPolicy, parseCanonical } from './address-policy';

describe('AddressPolicy (D10: only public unicast, unless MEDIA_FETCH_ALLOW_CIDRS lists it)', () => {
  const policy = new AddressPolicy();

  const refused: [string, string][] = [
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'this network'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.1', 'private 10/8'],
    ['172.16.0.1', 'private 172.16/12'],
    ['172.31.255.255', 'private 172.16/12'],
    ['192.168.1.1', 'private 192.168/16'],
    ['100.64.0.1', 'CGNAT 100.64/10'],
    ['100.127.255.254', 'CGNAT 100.64/10'],
    ['169.254.169.254', 'link-local (cloud metadata)'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved 240/4'],
    ['192.0.0.8', 'IETF protocol assignments'],
    ['192.0.2.1', 'documentation'],
    ['198.18.0.1', 'benchmarking'],
    ['::', 'IPv6 unspecified'],
    ['::1', 'IPv6 loopback'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
    ['::ffff:7f00:1', 'IPv4-mapped loopback, hex'],
    ['::ffff:169.254.169.254', 'IPv4-mapped metadata'],
    ['::ffff:10.0.0.1', 'IPv4-mapped private'],
    ['::127.0.0.1', 'IPv4-compatible loopback (ipaddr.js says unicast)'],
    ['::7f00:1', 'IPv4-compatible loopback, hex'],
    ['::8.8.8.8', 'IPv4-compatible, even of a public address'],
    ['64:ff9b::a9fe:a9fe', 'NAT64 of 169.254.169.254'],
    ['64:ff9b::7f00:1', 'NAT64 of loopback'],
    ['2002:7f00:1::', '6to4 of loopback'],
    ['2001:0:4136:e378::1', 'Teredo'],
    ['2001:db8::1', 'documentation'],
    ['fd00::1', 'unique local'],
    ['fc00::1', 'unique local'],
    ['fe80::1', 'link-local'],
    ['fec0::1', 'deprecated site-local'],
    ['ff02::1', 'multicast'],
    ['100::1', 'discard'],
    ['::ffff:0:7f00:1', 'SIIT (RFC 6145)'],
  ];

  it.each(refused)('refuses %s (%s)', (address) => {
    expect(policy.isAllowed(address)).toBe(false);
  });

  it.each([
    ['93.184.216.34'],
    ['8.8.8.8'],
    ['1.1.1.1'],
    ['2606:4700:4700::1111'],
    ['::ffff:8.8.8.8'],
    ['2a00:1450:4001:81c::200e'],
  ])('allows the public address %s', (address) => {
    expect(policy.isAllowed(address)).toBe(true);
  });

  it.each([
    ['0x7f.1'],
    ['2130706433'],
    ['017700000001'],
    ['127.1'],
    ['010.0.0.1'],
    ['localhost'],
    [''],
    ['1.2.3'],
  ])('does not parse the odd spelling %p: only canonical literals are classified', (text) => {
    expect(parseCanonical(text)).toBeNull();
    expect(policy.isAllowed(text)).toBe(false);
  });

  it('accepts bracketed IPv6 as the URL parser writes it', () => {
    expect(parseCanonical('[::1]')?.toString()).toBe('::1');
    expect(policy.isAllowed('[2606:4700:4700::1111]')).toBe(true);
    expect(policy.isAllowed('[::1]')).toBe(false);
  });

  it('lets MEDIA_FETCH_ALLOW_CIDRS open exactly the listed ranges, IPv4-mapped forms included', () => {
    const open = new AddressPolicy(['127.0.0.2/32', 'fd12::/16']);
    expect(open.isAllowed('127.0.0.2')).toBe(true);
    expect(open.isAllowed('::ffff:127.0.0.2')).toBe(true);
    expect(open.isAllowed('fd12::5')).toBe(true);
    expect(open.isAllowed('127.0.0.1')).toBe(false);
    expect(open.isAllowed('127.0.0.3')).toBe(false);
    expect(open.isAllowed('::1')).toBe(false);
    expect(open.isAllowed('fd13::1')).toBe(false);
    expect(open.isAllowed('8.8.8.8')).toBe(true);
  });
});
