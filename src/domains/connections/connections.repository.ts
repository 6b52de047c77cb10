import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { SecretsService } from '../../infrastructure/config/secrets.service';
import type { OAuthClient, OAuthClients } from '../platforms/oauth-flow';
import { OAuthClientRow } from './oauth-client.entity';
import { OAuthState } from './oauth-state.entity';

export type NewOAuthState = Omit<OAuthState, 'createdAt' | 'project' | 'user'>;

/** Started connections (by their state's hash) and the OAuth clients Herald registered. */
@Injectable()
export class ConnectionsRepository implements OAuthClients {
  constructor(
    @InjectRepository(OAuthState) private readonly states: Repository<OAuthState>,
    @InjectRepository(OAuthClientRow) private readonly clients: Repository<OAuthClientRow>,
    private readonly secrets: SecretsService,
  ) {}

  /** Stores a started connection, and forgets those that expired a day ago or more. */
  async start(state: NewOAuthState): Promise<void> {
    await this.states.query(`DELETE FROM oauth_states WHERE expires_at < now() - interval '1 day'`);
    await this.states.insert(state);
  }

  /**
   * Takes the started connection of `stateHash` on `platform` away, so that it is used at most
   * once; null when there is none, or it has expired (then it is gone too).
   */
  async take(stateHash: string, platform: string): Promise<OAuthState | null> {
    const [rows] = (await this.states.query(
      `DELETE FROM oauth_states WHERE state_hash = $1 AND platform = $2
       RETURNING project_id AS "projectId", platform, user_id AS "userId",
                 code_verifier_encrypted AS "codeVerifierEncrypted", redirect_url AS "redirectUrl",
                 context, expires_at AS "expiresAt", expires_at > now() AS live`,
      [stateHash, platform],
    )) as [(OAuthState & { live: boolean })[], number];
    const [row] = rows;
    return row?.live ? row : null;
  }

  async find(platform: string, issuer: string, redirectUri: string): Promise<OAuthClient | null> {
    const row = await this.clients.findOneBy({ platform, issuer, redirectUri });
    return row ? this.open(row) : null;
  }

  async keep(
    platform: string,
    issuer: string,
    redirectUri: string,
    client: OAuthClient,
  ): Promise<OAuthClient> {
    // Two starts on a new server at once both register; the first kept is the one used.
    await this.clients
      .createQueryBuilder()
      .insert()
      .values({
        platform,
        issuer,
        redirectUri,
        clientId: client.clientId,
        clientSecretEncrypted: this.secrets.seal(client.clientSecret),
      })
      .orIgnore()
      .execute();
    return this.open(await this.clients.findOneByOrFail({ platform, issuer, redirectUri }));
  }

  private open(row: OAuthClientRow): OAuthClient {
    return { clientId: row.clientId, clientSecret: this.secrets.open(row.clientSecretEncrypted) };
  }
}
