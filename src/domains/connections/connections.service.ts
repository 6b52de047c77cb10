import { Injectable, Logger } from '@nestjs/common';
import { createHash, randomBytes } from 'node:crypto';
import type { AppConfig } from '../../infrastructure/config/config';
import { InjectConfig } from '../../infrastructure/config/config.module';
import { SecretsService } from '../../infrastructure/config/secrets.service';
import { formatTimestamp } from '../../infrastructure/database/timestamps';
import { AppError } from '../../http/errors/error-codes';
import { AccountsService } from '../accounts/accounts.service';
import { ProjectsService } from '../projects/projects.service';
import { PlatformConnectors } from '../platforms/platform-connectors';
import type { OAuthFlow } from '../platforms/oauth-flow';
import type { ConnectionStartedDto, StartConnectionDto } from './connection.dto';
import { ConnectionsRepository } from './connections.repository';

/** How long the platform may take, all its calls together, to complete a connection. */
const FINISH_TIMEOUT_MS = 30_000;

/** How long a started connection may be completed. */
export const STATE_LIFETIME_MS = 10 * 60_000;

/** What the callback's query carries (RFC 6749 §4.1.2 and §4.1.2.1). */
export interface CallbackQuery {
  code?: unknown;
  state?: unknown;
  error?: unknown;
}

/** How a callback whose state was known ended, and where the browser goes then. */
export type CallbackOutcome = { redirectUrl: string | null; platform: string } & (
  | { status: 'connected'; accountId: number; title: string }
  | { status: 'error'; error: string; message: string }
);

/**
 * Connecting accounts through OAuth 2.0's authorization-code flow with PKCE (docs/integrating.md,
 * "Connecting your users' accounts"): a start hands out a single-use state bound to the project,
 * the platform, the starting user, the verifier and the redirect URL; the callback trades it
 * once for the account.
 */
@Injectable()
export class ConnectionsService {
  private readonly logger = new Logger(ConnectionsService.name);

  constructor(
    private readonly repository: ConnectionsRepository,
    private readonly connectors: PlatformConnectors,
    private readonly accounts: AccountsService,
    private readonly projects: ProjectsService,
    private readonly secrets: SecretsService,
    @InjectConfig() private readonly config: AppConfig,
  ) {}

  async start(
    projectId: number,
    userId: number,
    body: StartConnectionDto,
  ): Promise<ConnectionStartedDto> {
    const { platform, redirect_url: redirectUrl, ...fields } = body;
    const flow = this.flowOf(platform);
    if (!flow.configured) {
      const name = this.connectors.get(platform).displayName;
      throw new AppError(
        'platform_not_configured',
        `${name} accounts cannot be connected yet: the operator has not configured Herald's ${name} app`,
      );
    }
    const state = randomBytes(32).toString('base64url');
    const verifier = randomBytes(32).toString('base64url');
    const redirectUri = this.redirectUri(platform);
    const { url, context } = await flow.authorize({
      fields,
      redirectUri,
      state,
      codeChallenge: createHash('sha256').update(verifier).digest('base64url'),
      clients: this.repository,
    });
    const expiresAt = new Date(Date.now() + STATE_LIFETIME_MS).toISOString();
    await this.repository.start({
      stateHash: this.secrets.hashToken(state),
      projectId,
      platform,
      userId,
      codeVerifierEncrypted: this.secrets.seal(verifier),
      redirectUrl: redirectUrl ?? null,
      context: { ...context },
      expiresAt,
    });
    return { authorize_url: url, expires_at: formatTimestamp(expiresAt) };
  }

  /**
   * The state of a callback, taken so that it serves once; null when it is unknown, used or
   * expired on this platform.
   */
  async takeState(platform: string, query: CallbackQuery) {
    if (typeof query.state !== 'string' || query.state === '' || query.state.length > 512)
      return null;
    if (!this.connectors.all().some((c) => c.platform === platform && c.oauth)) return null;
    return this.repository.take(this.secrets.hashToken(query.state), platform);
  }

  /** Completes the connection the state stands for: the code exchanged, the account stored. */
  async complete(
    state: NonNullable<Awaited<ReturnType<ConnectionsService['takeState']>>>,
    query: CallbackQuery,
  ): Promise<CallbackOutcome> {
    const base = { redirectUrl: state.redirectUrl, platform: state.platform };
    if (query.error !== undefined || typeof query.code !== 'string' || query.code === '') {
      // Whatever the platform calls it, a consent that did not end with a code was declined.
      return {
        ...base,
        status: 'error',
        error: 'access_denied',
        message: 'The connection was declined',
      };
    }
    const access = await this.projects.findAccess(state.userId, state.projectId);
    if (!access?.permissions.can_manage_accounts)
      return {
        ...base,
        status: 'error',
        error: 'forbidden',
        message: 'Whoever started this connection may no longer manage the project’s accounts',
      };
    const abort = new AbortController();
    const timer = setTimeout(
      () => abort.abort(new DOMException('The connection timed out', 'TimeoutError')),
      FINISH_TIMEOUT_MS,
    );
    try {
      const connected = await this.flowOf(state.platform).finish({
        signal: abort.signal,
        code: query.code,
        redirectUri: this.redirectUri(state.platform),
        codeVerifier: this.secrets.open(state.codeVerifierEncrypted),
        context: state.context,
        clients: this.repository,
      });
      const { account } = await this.accounts.connectIdentity(
        state.projectId,
        state.platform,
        connected,
      );
      return { ...base, status: 'connected', accountId: account.id, title: account.title };
    } catch (error) {
      if (!(error instanceof AppError) || error.status === 500) throw error;
      this.logger.warn(`A ${state.platform} connection failed: ${error.code}`);
      return { ...base, status: 'error', error: error.code, message: error.message };
    } finally {
      clearTimeout(timer);
    }
  }

  /** Where the platform sends the browser back: `{PUBLIC_BASE_URL}/api/oauth/{platform}/callback`. */
  redirectUri(platform: string): string {
    return `${this.config.publicBaseUrl}/api/oauth/${platform}/callback`;
  }

  private flowOf(platform: string): OAuthFlow {
    const flow = this.connectors.get(platform).oauth;
    if (!flow) throw new Error(`${platform} does not connect through OAuth`);
    return flow;
  }
}
