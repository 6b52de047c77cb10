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

/** The system's resolver unless given (tests play DNS rebinding). */
export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;
export const HOST_RESOLVER = Symbol('HOST_RESOLVER');

export const systemResolver: HostResolver = async (hostname) => {
  const found: LookupAddress[] = await dnsLookup(hostname, { all: true, verbatim: true });
  return found.map((entry) => ({ address: entry.address, family: entry.family === 6 ? 6 : 4 }));
};

/** Else `invalid_url`; `use` ends "Only http and https URLs can {use}". */
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

export type AddressPins = Map<string, ResolvedAddress>;

export type HostVerdict = 'allowed' | 'not_allowed' | 'unresolved';

/** The one address policy for every URL a user gave (docs/api-rules.md#outbound-addresses). */
@Injectable()
export class HostAdmission {
  private readonly policy: AddressPolicy;

  constructor(
    @InjectConfig() config: AppConfig,
    @Inject(HOST_RESOLVER) private readonly resolve: HostResolver,
  ) {
    this.policy = new AddressPolicy(config.outboundAllowCidrs);
  }

  /** Every address a name resolves to must be allowed; an IP literal is checked as it is. */
  async admit(url: URL, pins: AddressPins): Promise<HostVerdict> {
    const host = url.hostname;
    if (isIpLiteral(host)) return this.policy.isAllowed(host) ? 'allowed' : 'not_allowed';
    const name = host.replace(/\.$/, '').toLowerCase();
    if (name === 'localhost' || name.endsWith('.localhost')) {
      // Loopback by definition (RFC 6761), never asked of DNS; allowed only if listed.
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

/** Only ever answers the checked address, so a second DNS answer (rebinding) is never used. */
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
