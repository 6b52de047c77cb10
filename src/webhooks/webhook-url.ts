import { AppError } from '../errors/error-codes';
import type { AddressPolicy } from '../outbound/address-policy';
import {
  admitHost,
  parseOutboundUrl,
  type AddressPins,
  type HostResolver,
} from '../outbound/pinned-address';

/**
 * Checks a receiver's URL by D10's address rules (the media fetcher's policy and resolver) and
 * pins the address to dial into `pins`. Throws `invalid_url` or `url_not_allowed`.
 */
export async function admitWebhookUrl(
  raw: string,
  policy: AddressPolicy,
  resolve: HostResolver,
  pins: AddressPins = new Map(),
): Promise<URL> {
  const url = parseOutboundUrl(raw, 'receive webhooks');
  switch (await admitHost(url, policy, resolve, pins)) {
    case 'not_allowed':
      throw new AppError(
        'url_not_allowed',
        'The URL points to a local or private address, which cannot receive webhooks',
      );
    case 'unresolved':
      throw new AppError('invalid_url', 'The host name of the url could not be resolved');
  }
  return url;
}
