import { AppError } from '../errors/error-codes';
import type { AddressPolicy } from '../outbound/address-policy';
import { admitHost, type AddressPins, type HostResolver } from '../outbound/pinned-address';

/** D21: an absolute http(s) URL without credentials; anything else is `invalid_url`. */
export function parseWebhookUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalidWebhookUrl('The url is not a valid absolute URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw invalidWebhookUrl('Only http and https URLs can receive webhooks');
  if (url.username !== '' || url.password !== '')
    throw invalidWebhookUrl('The url must not carry credentials');
  if (url.hostname === '') throw invalidWebhookUrl('The url has no host');
  return url;
}

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
  const url = parseWebhookUrl(raw);
  switch (await admitHost(url, policy, resolve, pins)) {
    case 'not_allowed':
      throw new AppError(
        'url_not_allowed',
        'The URL points to a local or private address, which cannot receive webhooks',
      );
    case 'unresolved':
      throw invalidWebhookUrl('The host name of the url could not be resolved');
  }
  return url;
}

function invalidWebhookUrl(message: string): AppError {
  return new AppError('invalid_url', message);
}
