import {
  Column,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
  Unique,
} from 'typeorm';
import { Account } from '../accounts/account.entity';
import { Channel } from '../channels/channel.entity';
import { TimestampColumn, type DbTimestamp } from '../../infrastructure/database/timestamps';
import type { SentMessage } from '../platforms/platform-answers';
import type { TargetStatus } from './post-state';
import { Post } from './post.entity';

/** docs/api-rules.md#delivery. */
@Entity('post_targets')
@Unique(['postId', 'accountId', 'chatId'])
export class PostTarget {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ type: 'int' })
  postId!: number;

  @ManyToOne(() => Post, (post) => post.targets, { onDelete: 'CASCADE' })
  @JoinColumn()
  post?: Post;

  /** Null once the channel is removed (the target keeps its history). */
  @Index()
  @Column({ type: 'int', nullable: true })
  channelId!: number | null;

  @ManyToOne(() => Channel, { onDelete: 'SET NULL' })
  @JoinColumn()
  channel?: Channel;

  @Column({ type: 'varchar', length: 32 })
  platform!: string;

  @Index()
  @Column({ type: 'int' })
  accountId!: number;

  // Accounts are removed by marking them, never deleted: the target keeps its history.
  @ManyToOne(() => Account, { onDelete: 'NO ACTION' })
  @JoinColumn()
  account?: Account;

  @Column({ type: 'varchar', length: 64 })
  chatId!: string;

  /** Every try of a send carries a key made from it, so a platform that knows it never doubles. */
  @Column({ type: 'varchar', length: 13, default: () => 'herald_tid()' })
  deliveryKey!: string;

  @Column({ type: 'int' })
  position!: number;

  @Column({ type: 'varchar', length: 16, default: 'pending' })
  status!: TargetStatus;

  @Column({ type: 'varchar', length: 64, nullable: true })
  errorCode!: string | null;

  @Column({ type: 'text', nullable: true })
  errorMessage!: string | null;

  /** Only on a platform whose ids are integers (Platform.listedMessageId). */
  @Column({ type: 'jsonb', default: () => "'[]'" })
  messageIds!: number[];

  @Column({ type: 'jsonb', default: () => "'[]'" })
  messages!: SentMessage[];

  /** Messages of the plan already sent: a retry resumes after them. */
  @Column({ type: 'int', default: 0 })
  stepsDone!: number;

  /** Set just before a send, cleared with its outcome; found set, the outcome is unknown. */
  @TimestampColumn()
  sendingSince!: DbTimestamp | null;

  @TimestampColumn()
  notBefore!: DbTimestamp | null;

  /** What the platform made toward step `step` (a container), for every later try of it. */
  @Column({ type: 'jsonb', nullable: true })
  sendProgress!: { step: number; value: string } | null;

  /** Transient failures so far; at PUBLICATION_MAX_TRIES it fails. */
  @Column({ type: 'int', default: 0 })
  failures!: number;

  @TimestampColumn()
  publishedAt!: DbTimestamp | null;
}
