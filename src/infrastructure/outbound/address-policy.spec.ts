import ipaddr from 'ipaddr.js';
import { AddressPolicy, isPublicAddress, parseCanonical } from './address-policy';

describe('AddressPolicy: only public unicast, unless OUTBOUND_ALLOW_CIDRS lists it', () => {
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

  // Every blocked IPv4 range in the forms IPv6 can carry it: IPv4-mapped
  // (::ffff:a.b.c.d, dotted and hex), IPv4-compatible (::a.b.c.d), NAT64 (64:ff9b::/96),
  // 6to4 (2002:a.b.c.d::/48) and Teredo (2001::/32, which hides the client's address).
  const blockedV4: [string, string][] = [
    ['0.0.0.1', '0000:0001'],
    ['10.1.2.3', '0a01:0203'],
    ['100.64.0.1', '6440:0001'],
    ['127.0.0.1', '7f00:0001'],
    ['169.254.169.254', 'a9fe:a9fe'],
    ['172.16.0.1', 'ac10:0001'],
    ['192.0.0.8', 'c000:0008'],
    ['192.0.2.1', 'c000:0201'],
    ['192.168.1.1', 'c0a8:0101'],
    ['198.18.0.1', 'c612:0001'],
    ['198.51.100.1', 'c633:6401'],
    ['203.0.113.1', 'cb00:7101'],
    ['224.0.0.1', 'e000:0001'],
    ['240.0.0.1', 'f000:0001'],
    ['255.255.255.255', 'ffff:ffff'],
  ];
  it.each(blockedV4)('refuses %s in every IPv6 form that embeds it', (v4, hex) => {
    const [high, low] = hex.split(':');
    const forms = [
      v4,
      `::ffff:${v4}`,
      `::ffff:${high}:${low}`,
      `[::ffff:${v4}]`,
      `0:0:0:0:0:ffff:${v4}`,
      `::${v4}`,
      `::${high}:${low}`,
      `64:ff9b::${v4}`,
      `64:ff9b::${high}:${low}`,
      `2002:${high}:${low}::1`,
      `2001:0:${high}:${low}::1`,
    ];
    for (const form of forms) expect([form, policy.isAllowed(form)]).toEqual([form, false]);
  });

  it.each([
    ['64:ff9b::8.8.8.8', 'NAT64 of a public address'],
    ['64:ff9b:1::1', 'local-use NAT64'],
    ['2002:808:808::1', '6to4 of a public address'],
    ['2001::1', 'Teredo'],
    ['2001:0:808:808::1', 'Teredo'],
    ['::2', 'IPv4-compatible ::0.0.0.2'],
    ['::ffff:0:8.8.8.8', 'SIIT of a public address'],
    ['1::1', 'outside global unicast'],
    ['4000::1', 'outside global unicast'],
    ['8000::1', 'outside global unicast'],
    ['e000::1', 'outside global unicast'],
  ])('refuses %s (%s)', (address) => expect(policy.isAllowed(address)).toBe(false));

  it.each(['2001:4860:4860::8888', '2a03:2880:f12f:83:face:b00c::25de', '2c0f:fb50:4003::1'])(
    'allows the public IPv6 %s',
    (address) => expect(policy.isAllowed(address)).toBe(true),
  );

  it('classifies an IPv4-mapped address by the IPv4 address it carries', () => {
    expect(isPublicAddress(ipaddr.parse('::ffff:127.0.0.1'))).toBe(false);
    expect(isPublicAddress(ipaddr.parse('::ffff:10.0.0.1'))).toBe(false);
    expect(isPublicAddress(ipaddr.parse('::ffff:8.8.8.8'))).toBe(true);
    expect(isPublicAddress(ipaddr.parse('8.8.8.8'))).toBe(true);
    // IPv4-compatible, written in hex (ipaddr.js would read `::8.8.8.8` as IPv4-mapped).
    expect(isPublicAddress(ipaddr.parse('::808:808'))).toBe(false);
    expect(isPublicAddress(ipaddr.parse('2606:4700:4700::1111'))).toBe(true);
  });

  it.each([
    ['[::12', 'an opening bracket only'],
    ['1::1]', 'a closing bracket only'],
    ['fe80::1%eth0', 'a zone id'],
    ['[fe80::1%25eth0]', 'an escaped zone id'],
    [' 8.8.8.8', 'a leading space'],
    ['8.8.8.8 ', 'a trailing space'],
    ['8.8.8.8.', 'a trailing dot'],
    ['256.1.1.1', 'an octet above 255'],
  ])('does not parse %p (%s)', (text) => {
    expect(parseCanonical(text)).toBeNull();
    expect(policy.isAllowed(text)).toBe(false);
  });

  it.each([
    ['::127.0.0.1', '::7f00:1'],
    ['::ffff:127.0.0.1', '::ffff:7f00:1'],
    ['0:0:0:0:0:0:0:1', '::1'],
    ['8.8.8.8', '8.8.8.8'],
  ])('parses %p as %p', (text, canonical) =>
    expect(parseCanonical(text)?.toString()).toBe(canonical),
  );

  it('matches an allowed IPv6 range against the address as written, before unwrapping', () => {
    const mapped = new AddressPolicy(['::ffff:127.0.0.0/104']);
    expect(mapped.isAllowed('::ffff:127.0.0.5')).toBe(true);
    expect(mapped.isAllowed('127.0.0.5')).toBe(false);
    expect(mapped.isAllowed('::ffff:10.0.0.5')).toBe(false);
    const nat64 = new AddressPolicy(['64:ff9b::/96']);
    expect(nat64.isAllowed('64:ff9b::127.0.0.1')).toBe(true);
    expect(nat64.isAllowed('127.0.0.1')).toBe(false);
  });

  it('keeps refusing private space when the allow list names only other ranges', () => {
    const open = new AddressPolicy(['10.0.0.0/8']);
    expect(open.isAllowed('10.255.255.255')).toBe(true);
    expect(open.isAllowed('11.0.0.0')).toBe(true);
    expect(open.isAllowed('192.168.0.1')).toBe(false);
    expect(open.isAllowed('::ffff:192.168.0.1')).toBe(false);
    expect(open.isAllowed('fd00::1')).toBe(false);
    expect(new AddressPolicy().isAllowed('10.0.0.1')).toBe(false);
  });
});
