import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import {
  CreatedAtColumn,
  type DbTimestamp,
  TimestampColumn,
} from '../../infrastructure/database/timestamps';

/**
 * One Idempotency-Key of an API key: claimed by the first request that names it, then
 * holding that request's answer for 24 hours. A row without `responseStatus` is still running.
 * No foreign key to api_keys: its check would lock the API key's row at every claim; a deleted
 * key's rows are unreachable (ids are never reused) and purged when they expire.
 */
@Entity('idempotency_keys')
export class IdempotencyKey {
  @PrimaryColumn({ type: 'int' })
  apiKeyId!: number;

  @PrimaryColumn({ type: 'varchar', length: 255 })
  key!: string;

  /** Hex SHA-256 of method, path and body bytes; null while a multipart body is being read. */
  @Column({ type: 'varchar', length: 64, nullable: true })
  fingerprint!: string | null;

  @Column({ type: 'int', nullable: true })
  responseStatus!: number | null;

  @Column({ type: 'jsonb', nullable: true })
  responseBody!: unknown;

  @CreatedAtColumn()
  createdAt!: DbTimestamp;

  /** Past this instant the key is free again; the purge removes such rows. */
  @Index()
  @TimestampColumn({ nullable: false })
  expiresAt!: DbTimestamp;
}
