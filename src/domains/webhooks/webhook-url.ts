import { AppError } from '../../http/errors/error-codes';
import {
  parseOutboundUrl,
  type AddressPins,
  type HostAdmission,
} from '../../infrastructure/outbound/pinned-address';

/** As for media by link, pinning into `pins`; throws `invalid_url` or `url_not_allowed`. */
export async function admitWebhookUrl(
  raw: string,
  hosts: HostAdmission,
  pins: AddressPins = new Map(),
): Promise<URL> {
  const url = parseOutboundUrl(raw, 'receive webhooks');
  switch (await hosts.admit(url, pins)) {
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
