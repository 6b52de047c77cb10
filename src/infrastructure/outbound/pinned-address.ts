import { Inject, Injectable } from '@nestjs/common';
import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import type { AppConfig } from '../config/config';
import { InjectConfig } from '../config/config.module';
import { AppError } from '../../http/errors/error-codes';
import { AddressPolicy } from './address-policy';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/**
 * Resolves a host name to every address it has; the system's unless given (tests play DNS
 * rebinding).
 */
export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;
export const HOST_RESOLVER = Symbol('HOST_RESOLVER');

export const systemResolver: HostResolver = async (hostname) => {
  const found: LookupAddress[] = await dnsLookup(hostname, { all: true, verbatim: true });
  return found.map((entry) => ({ address: entry.address, family: entry.family === 6 ? 6 : 4 }));
};

/**
 * An absolute http(s) URL without credentials (docs/api-rules.md#outbound-addresses); anything
 * else is `invalid_url`. `use` ends the refusal of another scheme: "Only http and https URLs can
 * {use}".
 */
export function parseOutboundUrl(raw: string, use: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalidUrl('The url is not a valid absolute URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw invalidUrl(`Only http and https URLs can ${use}`);
  if (url.username !== '' || url.password !== '')
    throw invalidUrl('The url must not carry credentials');
  if (url.hostname === '') throw invalidUrl('The url has no host');
  return url;
}

function invalidUrl(message: string): AppError {
  return new AppError('invalid_url', message);
}

/** The address each host name of one outbound request must be dialled at. */
export type AddressPins = Map<string, ResolvedAddress>;

/**
 * What checking one URL's host found: allowed (and pinned), refused, or a name that does not
 * resolve.
 */
export type HostVerdict = 'allowed' | 'not_allowed' | 'unresolved';

/**
 * The outbound address rules (`OUTBOUND_ALLOW_CIDRS` included) and the resolver, built once for
 * every request to a URL a user gave: media by link and webhook receivers are admitted alike.
 */
@Injectable()
export class HostAdmission {
  private readonly policy: AddressPolicy;

  constructor(
    @InjectConfig() config: AppConfig,
    @Inject(HOST_RESOLVER) private readonly resolve: HostResolver,
  ) {
    this.policy = new AddressPolicy(config.outboundAllowCidrs);
  }

  /**
   * Checks the host of one request (or redirect hop) and pins the address the connection must
   * use. An IP literal is checked as it is (Node dials it without a lookup); `localhost` is
   * loopback without asking DNS; every address a name resolves to must be allowed, so a name
   * mixing public and private addresses is refused.
   */
  async admit(url: URL, pins: AddressPins): Promise<HostVerdict> {
    const host = url.hostname;
    if (isIpLiteral(host)) return this.policy.isAllowed(host) ? 'allowed' : 'not_allowed';
    const name = host.replace(/\.$/, '').toLowerCase();
    if (name === 'localhost' || name.endsWith('.localhost')) {
      // Loopback by definition (RFC 6761), never asked of DNS: admitted only when the allow-list
      // covers a loopback address, which is then the one dialled.
      const loopback = LOOPBACK.find((entry) => this.policy.isAllowed(entry.address));
      if (!loopback) return 'not_allowed';
      pins.set(host, loopback);
      return 'allowed';
    }
    let addresses: ResolvedAddress[];
    try {
      addresses = await this.resolve(host);
    } catch {
      return 'unresolved';
    }
    if (addresses.length === 0) return 'unresolved';
    if (!addresses.every((entry) => this.policy.isAllowed(entry.address))) return 'not_allowed';
    pins.set(host, addresses[0]);
    return 'allowed';
  }
}

const LOOPBACK: ResolvedAddress[] = [
  { address: '127.0.0.1', family: 4 },
  { address: '::1', family: 6 },
];

function isIpLiteral(hostname: string): boolean {
  const bare =
    hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return isIP(bare) !== 0;
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for undici's connector that only ever answers the address that was checked, so a
 * second DNS answer (rebinding) is never used.
 */
export function pinnedLookup(pins: AddressPins) {
  return (hostname: string, options: { all?: boolean }, callback: LookupCallback): void => {
    const pin = pins.get(hostname);
    if (!pin) {
      const error: NodeJS.ErrnoException = new Error(`No checked address for ${hostname}`);
      error.code = 'ENOTFOUND';
      callback(error, '');
      return;
    }
    if (options.all) callback(null, [{ address: pin.address, family: pin.family }]);
    else callback(null, pin.address, pin.family);
  };
}
