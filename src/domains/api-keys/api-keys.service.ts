import { Injectable, Logger } from '@nestjs/common';
import type { AuthUser, Principal } from '../../access/principal';
import { SecretsService } from '../../infrastructure/config/secrets.service';
import { formatTimestamp, parseInputTimestamp } from '../../infrastructure/database/timestamps';
import { AppError } from '../../http/errors/error-codes';
import { validationFailed } from '../../http/errors/validation';
import { ApiKey } from './api-key.entity';
import { ApiKeyCache, KeyRecord } from './api-key-cache';
import { ApiKeysRepository } from './api-keys.repository';
import {
  API_KEY_PUBLIC_LENGTH,
  API_KEY_SECRET_LENGTH,
  apiKeyPrefix,
  type ApiKeyMode,
  formatApiKey,
  parseApiKey,
} from './api-key-format';
import { Scope, SCOPES } from '../../access/scopes';

const LAST_USED_WRITE_INTERVAL_MS = 60_000;

export interface CreateApiKeyInput {
  name: string;
  scopes?: Scope[];
  expiresAt?: string;
  mode?: ApiKeyMode;
}

export interface ApiKeyView {
  id: number;
  name: string;
  prefix: string;
  mode: ApiKeyMode;
  scopes: Scope[];
  expires_at: string | null;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

@Injectable()
export class ApiKeysService {
  private readonly logger = new Logger(ApiKeysService.name);
  /** So most requests write nothing. */
  private readonly lastWritten = new Map<number, number>();

  constructor(
    private readonly keys: ApiKeysRepository,
    private readonly secrets: SecretsService,
    private readonly cache: ApiKeyCache,
  ) {}

  /** The full key is in the answer once and never again. */
  async create(userId: number, input: CreateApiKeyInput): Promise<ApiKeyView & { key: string }> {
    let expiresAt: string | null = null;
    if (input.expiresAt !== undefined) {
      const parsed = parseInputTimestamp(input.expiresAt);
      if (!parsed)
        throw validationFailed([{ field: 'expires_at', message: 'must be an ISO 8601 date-time' }]);
      if (parsed.epochMs <= Date.now()) {
        throw validationFailed([{ field: 'expires_at', message: 'must be in the future' }]);
      }
      expiresAt = parsed.iso;
    }
    const publicId = this.secrets.randomAlphanumeric(API_KEY_PUBLIC_LENGTH);
    const secret = this.secrets.randomAlphanumeric(API_KEY_SECRET_LENGTH);
    const mode = input.mode ?? 'live';
    const stored = await this.keys.insert({
      userId,
      name: input.name,
      publicId,
      secretHash: this.secrets.hashToken(secret),
      scopes: input.scopes && input.scopes.length > 0 ? [...new Set(input.scopes)] : [...SCOPES],
      mode,
      expiresAt,
    });
    return { ...toApiKeyView(stored), key: formatApiKey(mode, publicId, secret) };
  }

  async list(userId: number): Promise<ApiKeyView[]> {
    return (await this.keys.list(userId)).map(toApiKeyView);
  }

  /** Stored first, then evicted from every process's memory of keys. */
  async revoke(userId: number, id: number): Promise<void> {
    const publicId = await this.keys.revoke(userId, id);
    if (publicId === null) throw new AppError('api_key_not_found', 'API key not found');
    await this.cache.revoked(id, publicId);
  }

  /** Every failure is the same 401, so nothing tells a bad key from a revoked one. */
  async authenticate(token: string | null): Promise<Principal> {
    const parsed = token ? parseApiKey(token) : null;
    if (!parsed) throw AppError.unauthorized();
    const row = this.cache.get(parsed.publicId) ?? (await this.lookUp(parsed.publicId));
    const presented = this.secrets.hashToken(parsed.secret);
    if (!row || !this.secrets.digestsEqual(presented, row.secret_hash) || row.mode !== parsed.mode)
      throw AppError.unauthorized();
    this.touch(row.id);
    const user: AuthUser = {
      id: row.user_id,
      email: row.email,
      name: row.name,
      isAdmin: row.is_admin,
      isOperator: row.is_operator,
    };
    return {
      kind: 'api_key',
      user,
      apiKey: { id: row.id, publicId: row.public_id, scopes: row.scopes, mode: row.mode },
    };
  }

  private async lookUp(publicId: string): Promise<KeyRecord | undefined> {
    const version = this.cache.version();
    const row = await this.keys.findLive(publicId);
    if (row) this.cache.put(version, row);
    return row;
  }

  private touch(id: number): void {
    const now = Date.now();
    const last = this.lastWritten.get(id);
    if (last !== undefined && now - last < LAST_USED_WRITE_INTERVAL_MS) return;
    this.lastWritten.set(id, now);
    // The WHERE clause keeps the once-a-minute promise across instances too.
    this.keys
      .touch(id)
      .catch((error: Error) => this.logger.warn(`Could not record key use: ${error.message}`));
  }
}

export function toApiKeyView(key: ApiKey): ApiKeyView {
  return {
    id: key.id,
    name: key.name,
    prefix: apiKeyPrefix(key.mode, key.publicId),
    mode: key.mode,
    scopes: key.scopes,
    expires_at: formatTimestamp(key.expiresAt),
    created_at: formatTimestamp(key.createdAt),
    last_used_at: formatTimestamp(key.lastUsedAt),
    revoked_at: formatTimestamp(key.revokedAt),
  };
}
