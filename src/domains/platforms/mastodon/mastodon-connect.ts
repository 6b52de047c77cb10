import type { ConnectMethod } from '../platform-descriptor';

/** An account of an instance, connected by the instance's address and an access token. */
export const MASTODON_CONNECT: ConnectMethod = {
  mode: 'credentials',
  fields: [
    {
      name: 'instance_url',
      description:
        "the address of the account's instance (http or https; kept as its origin). A user's address: it must be public unless OUTBOUND_ALLOW_CIDRS lists it (else invalid_url or url_not_allowed)",
      example: 'https://mastodon.social',
    },
    {
      name: 'access_token',
      // An OAuth bearer token's characters: it goes into the Authorization header as it is.
      pattern: /^(?=.{1,1024}$)[A-Za-z0-9\-._~+/]+=*$/,
      patternMessage: 'access_token must be an access token of the Mastodon instance',
      description:
        "the access token of an application made under Preferences → Development with the scopes read:accounts, write:statuses and write:media (its page shows 'Your access token')",
    },
  ],
  checkedWith:
    "a Mastodon `instance_url` and `access_token` (verify_credentials, then the instance's limits; the account comes with its own timeline as its channel)",
  example: {
    instance_url: 'https://mastodon.social',
    access_token: 'your-application-access-token',
  },
};
