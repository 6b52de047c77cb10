import type { ConnectField, ConnectMethod, OAuthMethod } from '../platform-descriptor';

/** An account of an instance, connected by the instance's address and an access token. */
const INSTANCE_URL: ConnectField = {
  name: 'instance_url',
  description:
    "the address of the account's instance (http or https; kept as its origin). A user's address: it must be public unless OUTBOUND_ALLOW_CIDRS lists it (else invalid_url or url_not_allowed)",
  example: 'https://mastodon.social',
};

/** The scopes Herald asks of an instance, and that a pasted token must carry. */
export const MASTODON_SCOPES = 'read:accounts write:statuses write:media';

export const MASTODON_CONNECT: ConnectMethod = {
  mode: 'credentials',
  fields: [
    INSTANCE_URL,
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

/** Through OAuth: the user signs in on the instance, which Herald registers itself on once. */
export const MASTODON_OAUTH: OAuthMethod = {
  fields: [INSTANCE_URL],
  example: { instance_url: 'https://mastodon.social' },
};
