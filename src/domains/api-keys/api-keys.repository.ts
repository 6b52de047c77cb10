import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { rowsOf, Statement } from '../../infrastructure/database/prepared';
import { ApiKey } from './api-key.entity';
import type { KeyRecord } from './api-key-cache';

/** Found by its public part; the secret is compared in constant time afterwards. */
const FIND_KEY = new Statement(
  `SELECT k.id, k.public_id, k.secret_hash, k.scopes, k.mode, k.user_id,
          (extract(epoch FROM k.expires_at) * 1000)::float8 AS expires_at_ms,
          u.email, u.name, u.is_admin, u.is_operator
     FROM api_keys k JOIN users u ON u.id = k.user_id
    WHERE k.public_id = $1 AND k.revoked_at IS NULL
      AND (k.expires_at IS NULL OR k.expires_at > now())`,
);

const REVOKE_KEY = new Statement(
  `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, now())
    WHERE id = $1 AND user_id = $2
    RETURNING public_id`,
);

/** The secret only as a hash. */
export type NewApiKey = Pick<
  ApiKey,
  'userId' | 'name' | 'publicId' | 'secretHash' | 'scopes' | 'mode' | 'expiresAt'
>;

/** Keys belong to a user, not a project: every method is scoped by the user or the key. */
@Injectable()
export class ApiKeysRepository {
  constructor(@InjectRepository(ApiKey) private readonly keys: Repository<ApiKey>) {}

  async insert(key: NewApiKey): Promise<ApiKey> {
    const saved = await this.keys.save(this.keys.create(key));
    return this.keys.findOneByOrFail({ id: saved.id });
  }

  /** Newest first, revoked and expired ones included. */
  list(userId: number): Promise<ApiKey[]> {
    return this.keys.find({
      where: { userId },
      order: { createdAt: 'DESC', id: 'DESC' },
    });
  }

  /** Again is a no-op; its public id, or null when the user has none. */
  async revoke(userId: number, keyId: number): Promise<string | null> {
    const [revoked] = await rowsOf<{ public_id: string }>(this.keys.manager, REVOKE_KEY, [
      keyId,
      userId,
    ]);
    return revoked?.public_id ?? null;
  }

  /** Not scoped: it finds who. */
  async findLive(publicId: string): Promise<KeyRecord | undefined> {
    const [row] = await rowsOf<KeyRecord>(this.keys.manager, FIND_KEY, [publicId]);
    return row;
  }

  /** At most once a minute, whichever instance asks. */
  async touch(keyId: number): Promise<void> {
    await this.keys.query(
      `UPDATE api_keys SET last_used_at = now()
        WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
      [keyId],
    );
  }
}
