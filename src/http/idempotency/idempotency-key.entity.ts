import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import {
  CreatedAtColumn,
  type DbTimestamp,
  TimestampColumn,
} from '../../infrastructure/database/timestamps';

/** Without `responseStatus` it is running; no foreign key, whose check would lock the key's row. */
@Entity('idempotency_keys')
export class IdempotencyKey {
  @PrimaryColumn({ type: 'int' })
  apiKeyId!: number;

  @PrimaryColumn({ type: 'varchar', length: 255 })
  key!: string;

  /** Null while a multipart body is being read. */
  @Column({ type: 'varchar', length: 64, nullable: true })
  fingerprint!: string | null;

  @Column({ type: 'int', nullable: true })
  responseStatus!: number | null;

  @Column({ type: 'jsonb', nullable: true })
  responseBody!: unknown;

  @CreatedAtColumn()
  createdAt!: DbTimestamp;

  /** Past it the key is free again; the purge removes such rows. */
  @Index()
  @TimestampColumn({ nullable: false })
  expiresAt!: DbTimestamp;
}
