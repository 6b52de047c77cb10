import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import {
  CreatedAtColumn,
  TimestampColumn,
  type DbTimestamp,
} from '../../infrastructure/database/timestamps';
import type { PlatformLimits } from '../platforms/platform-answers';
import type { PlatformName } from '../platforms/platforms';
import { Project } from '../projects/project.entity';

/** A connected social account (a bot, a user of an instance, …) of a project. */
@Entity('accounts')
@Index('IDX_accounts_renewable_tokens', ['tokenExpiresAt'], {
  where: `"token_renewable" AND "removed_at" IS NULL AND NOT "needs_reconnect"`,
})
export class Account {
  @PrimaryGeneratedColumn()
  id!: number;

  @Index()
  @Column({ type: 'int' })
  projectId!: number;

  @ManyToOne(() => Project, { onDelete: 'CASCADE' })
  @JoinColumn()
  project?: Project;

  @Column({ type: 'varchar', length: 32 })
  platform!: PlatformName;

  @Column({ type: 'varchar', length: 64 })
  externalId!: string;

  @Column({ type: 'varchar', length: 255 })
  title!: string;

  @Column({ type: 'varchar', length: 255, nullable: true })
  username!: string | null;

  /** AES-256-GCM sealed (SecretBox), as the platform's connector keeps them; null once removed. */
  @Column({ type: 'text', nullable: true })
  credentialsEncrypted!: string | null;

  @Column({ type: 'boolean', default: false })
  needsReconnect!: boolean;

  /** Sealed like the credentials; null if none. */
  @Column({ type: 'text', nullable: true })
  sessionEncrypted!: string | null;

  /** Null: its platform's. */
  @Column({ type: 'jsonb', nullable: true })
  limits!: PlatformLimits | null;

  @CreatedAtColumn()
  createdAt!: DbTimestamp;

  /** When the access token in the credentials expires; null when it does not. */
  @TimestampColumn()
  tokenExpiresAt!: DbTimestamp | null;

  /** When that access token was obtained: its life is the time between. */
  @TimestampColumn()
  tokenObtainedAt!: DbTimestamp | null;

  /** The platform can give a new access token for the current credentials. */
  @Column({ type: 'boolean', default: false })
  tokenRenewable!: boolean;

  /** After this nothing can renew the credentials: the account must be connected again. */
  @TimestampColumn()
  reconnectBy!: DbTimestamp | null;

  /** Renewals in a row that failed transiently; the sweep waits until `renewAfter`. */
  @Column({ type: 'int', default: 0 })
  renewalFailures!: number;

  @TimestampColumn()
  renewAfter!: DbTimestamp | null;

  /** Set when the account is removed: it stays, disconnected, so its posts keep their history. */
  @TimestampColumn()
  removedAt!: DbTimestamp | null;
}
