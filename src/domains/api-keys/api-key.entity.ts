import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import {
  CreatedAtColumn,
  type DbTimestamp,
  TimestampColumn,
} from '../../infrastructure/database/timestamps';
import { User } from '../users/user.entity';
import type { ApiKeyMode } from './api-key-format';
import { Scope } from '../../access/scopes';

@Entity('api_keys')
export class ApiKey {
  @PrimaryGeneratedColumn()
  id!: number;

  @Index()
  @Column({ type: 'int' })
  userId!: number;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn()
  user?: User;

  @Column({ type: 'varchar', length: 200 })
  name!: string;

  /** The public part of the key (16 characters); the lookup handle. */
  @Index({ unique: true })
  @Column({ type: 'varchar', length: 16 })
  publicId!: string;

  /** HMAC-SHA-256 of the secret part, hex. */
  @Column({ type: 'char', length: 64 })
  secretHash!: string;

  @Column({ type: 'text', array: true })
  scopes!: Scope[];

  /** `test` keys create and see test posts only (docs/api-rules.md#test-mode). */
  @Column({ type: 'varchar', length: 8, default: 'live' })
  mode!: ApiKeyMode;

  @TimestampColumn()
  expiresAt!: DbTimestamp | null;

  @CreatedAtColumn()
  createdAt!: DbTimestamp;

  @TimestampColumn()
  lastUsedAt!: DbTimestamp | null;

  @TimestampColumn()
  revokedAt!: DbTimestamp | null;
}
