import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { ApiKey } from '../api-keys/api-key.entity';
import { CreatedAtColumn, type DbTimestamp, TimestampColumn } from '../database/timestamps';

/**
 * One Idempotency-Key of an API key (D20): claimed by the first request that names it, then
 * holding that request's answer for 24 hours. A row without `responseStatus` is still running.
 */
@Entity('idempotency_keys')
export class IdempotencyKey {
  @PrimaryColumn({ type: 'int' })
  apiKeyId!: number;

  @ManyToOne(() => ApiKey, { onDelete: 'CASCADE' })
  @JoinColumn()
  apiKey?: ApiKey;

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
