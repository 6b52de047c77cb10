import type { ConnectMethod } from '../platform-descriptor';

/** An account connected with its handle (or DID) and an app password, checked by opening a session. */
export const BLUESKY_CONNECT: ConnectMethod = {
  mode: 'credentials',
  fields: [
    {
      name: 'identifier',
      // A handle (a domain name) or a DID.
      pattern:
        /^(did:[a-z]+:[A-Za-z0-9._:%-]{1,2000}|@?([A-Za-z0-9-]{1,63}\.)+[A-Za-z0-9-]{2,63})$/,
      patternMessage: 'identifier must be a Bluesky handle (name.bsky.social) or a DID',
      description: 'the handle or DID',
      example: 'herald.bsky.social',
    },
    { name: 'app_password', description: 'an app password (Settings → App passwords)' },
    {
      name: 'service_url',
      optional: true,
      description: "the account's service (its PDS); the operator's default when absent",
      example: 'https://bsky.social',
    },
  ],
  checkedWith:
    'a Bluesky `identifier` and `app_password` with an optional `service_url` (createSession; the account comes with its feed)',
  example: { identifier: 'herald.bsky.social', app_password: 'abcd-efgh-ijkl-mnop' },
};
