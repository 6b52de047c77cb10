import type { TokenTerms } from '../platforms/oauth-flow';
import type { AccountCredentials, TokenColumn } from './accounts.repository';

/** The account's columns for credentials of these terms, obtained now (none: they never expire). */
export function tokenColumns(
  terms: TokenTerms | undefined,
  obtainedAt = new Date(),
): Required<Pick<AccountCredentials, TokenColumn>> {
  return {
    tokenExpiresAt: terms?.expiresAt?.toISOString() ?? null,
    tokenObtainedAt: terms?.expiresAt ? obtainedAt.toISOString() : null,
    tokenRenewable: Boolean(terms?.renewable && terms.expiresAt),
    reconnectBy: terms?.reconnectBy?.toISOString() ?? null,
    renewalFailures: 0,
    renewAfter: null,
  };
}
