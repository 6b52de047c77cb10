import { Injectable } from '@nestjs/common';
import { SecretsService } from '../../../infrastructure/config/secrets.service';
import type { BlueskyCredentials, BlueskySession, SessionAnswer } from './bluesky-credentials';
import { BlueskySessionRepository } from './bluesky-session.repository';
import { BlueskyXrpc, XrpcError } from './bluesky-xrpc';

/** Expired, revoked, or not accepted. */
export function isAuthFailure(error: unknown): boolean {
  return (
    error instanceof XrpcError &&
    (error.status === 401 ||
      (error.status === 400 && ['ExpiredToken', 'InvalidToken'].includes(error.error)))
  );
}

/** One sealed session per account, shared by workers (new ones are scarce); renewals take turns. */
@Injectable()
export class BlueskySessions {
  private readonly known = new Map<number, { sealed: string; session: BlueskySession }>();

  constructor(
    private readonly sessions: BlueskySessionRepository,
    private readonly secrets: SecretsService,
    private readonly xrpc: BlueskyXrpc,
  ) {}

  /** The one this process knows, else the stored one, else a new one. */
  async current(accountId: number, credentials: BlueskyCredentials): Promise<BlueskySession> {
    const known = this.known.get(accountId);
    if (known) return known.session;
    const stored = await this.sessions.read(accountId);
    if (stored) return this.remember(accountId, stored);
    return this.renew(accountId, credentials, null);
  }

  /** Another worker's, else refreshed, else new; throws when the app password opens none. */
  async renew(
    accountId: number,
    credentials: BlueskyCredentials,
    stale: BlueskySession | null,
  ): Promise<BlueskySession> {
    const sealed = await this.sessions.replaceLocked(accountId, async (storedSealed) => {
      const stored = storedSealed ? this.open(storedSealed) : null;
      // Another worker renewed it meanwhile: use theirs, and spend no refresh token.
      if (storedSealed && stored && stored.accessJwt !== stale?.accessJwt) return storedSealed;
      const fresh = await this.refreshOrCreate(credentials, stored);
      return this.secrets.seal(JSON.stringify(fresh));
    });
    return this.remember(accountId, sealed);
  }

  private async refreshOrCreate(
    credentials: BlueskyCredentials,
    stored: BlueskySession | null,
  ): Promise<BlueskySession> {
    if (stored) {
      try {
        return tokens(
          await this.xrpc.call({ service: credentials.service, token: stored.refreshJwt }, (c, o) =>
            c.com.atproto.server.refreshSession(undefined, o),
          ),
        );
      } catch (error) {
        if (!isAuthFailure(error)) throw error;
      }
    }
    return tokens(await createSession(this.xrpc, credentials));
  }

  private remember(accountId: number, sealed: string): BlueskySession {
    const known = this.known.get(accountId);
    if (known?.sealed === sealed) return known.session;
    const session = this.open(sealed);
    this.known.set(accountId, { sealed, session });
    return session;
  }

  private open(sealed: string): BlueskySession {
    return JSON.parse(this.secrets.open(sealed)) as BlueskySession;
  }
}

export function createSession(
  xrpc: BlueskyXrpc,
  credentials: BlueskyCredentials,
): Promise<SessionAnswer> {
  return xrpc.call({ service: credentials.service }, (c, o) =>
    c.com.atproto.server.createSession(
      { identifier: credentials.identifier, password: credentials.appPassword },
      o,
    ),
  );
}

function tokens(answer: SessionAnswer): BlueskySession {
  return { accessJwt: answer.accessJwt, refreshJwt: answer.refreshJwt };
}
