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

/** One channel a post goes to, with its own delivery state (docs/api-rules.md#delivery). */
@Entity('post_targets')
@Unique(['postId', 'accountId', 'chatId'])
export class PostTarget {
  @PrimaryGeneratedColumn()
  id!: number;

  /** Looked up through the unique index, which leads with it. */
  @Column({ type: 'int' })
  postId!: number;

  @ManyToOne(() => Post, (post) => post.targets, { onDelete: 'CASCADE' })
  @JoinColumn()
  post?: Post;

  /** The channel row; null once the channel is removed (the target keeps its history). */
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

  /** The chat id on the platform, as text (the `channel_id` of the channel). */
  @Column({ type: 'varchar', length: 64 })
  chatId!: string;

  /**
   * A TID made when the target is stored: every try of one of its sends carries a key made from it,
   * so a platform that recognises the key never posts twice.
   */
  @Column({ type: 'varchar', length: 13, default: () => 'herald_tid()' })
  deliveryKey!: string;

  /** Order of the targets as the request gave them. */
  @Column({ type: 'int' })
  position!: number;

  @Column({ type: 'varchar', length: 16, default: 'pending' })
  status!: TargetStatus;

  @Column({ type: 'varchar', length: 64, nullable: true })
  errorCode!: string | null;

  @Column({ type: 'text', nullable: true })
  errorMessage!: string | null;

  /** Integer message ids, in order, on a platform whose ids are integers (Platform.listedMessageId). */
  @Column({ type: 'jsonb', default: () => "'[]'" })
  messageIds!: number[];

  /** Every message this target became, in order: the platform's id (as text) and its link. */
  @Column({ type: 'jsonb', default: () => "'[]'" })
  messages!: SentMessage[];

  /** Messages of the delivery plan already sent (album, then long text): resumes after a retry. */
  @Column({ type: 'int', default: 0 })
  stepsDone!: number;

  /**
   * Set just before a send goes out, cleared when its outcome is known. Found set when a job
   * starts, it means a worker died mid-send: the outcome is unknown, never sent blindly again.
   */
  @TimestampColumn()
  sendingSince!: DbTimestamp | null;

  /** A pacing slot reserved for the next send: the job waits in the queue until then. */
  @TimestampColumn()
  notBefore!: DbTimestamp | null;

  /** Transient failures so far (5xx, refused connection); at PUBLICATION_MAX_TRIES it fails. */
  @Column({ type: 'int', default: 0 })
  failures!: number;

  @TimestampColumn()
  publishedAt!: DbTimestamp | null;
}
