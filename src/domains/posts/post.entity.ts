import {
  Column,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  OneToMany,
  PrimaryGeneratedColumn,
} from 'typeorm';
import {
  CreatedAtColumn,
  TimestampColumn,
  type DbTimestamp,
} from '../../infrastructure/database/timestamps';
import { Project } from '../projects/project.entity';
import { User } from '../users/user.entity';
import type { PostStatus } from './post-state';
import type { ThreadItemRow } from './post-rows';
import { PostMedia } from './post-media.entity';
import { PostTarget } from './post-target.entity';

/** docs/api-rules.md#post-states. */
@Entity('posts')
@Index(['projectId', 'test', 'createdAt', 'id'])
// The list filtered by status, in its date order: a page reads only the rows it shows.
@Index(['projectId', 'test', 'status', 'createdAt', 'id'])
@Index(['createdByUserId', 'createdAt'])
// The schedule in due order: the sweep reads only the stretch coming within its horizon.
@Index('IDX_posts_scheduled_due', ['scheduledAt', 'id'], { where: `"status" = 'scheduled'` })
export class Post {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ type: 'int' })
  projectId!: number;

  @ManyToOne(() => Project, { onDelete: 'CASCADE' })
  @JoinColumn()
  project?: Project;

  /** Kept when the user is deleted (usage counts these). */
  @Column({ type: 'int', nullable: true })
  createdByUserId!: number | null;

  @ManyToOne(() => User, { onDelete: 'SET NULL' })
  @JoinColumn()
  createdByUser?: User;

  @Column({ type: 'text', default: '' })
  text!: string;

  /** Further messages, each a reply to the one before, as given. */
  @Column({ type: 'jsonb', default: () => "'[]'" })
  thread!: ThreadItemRow[];

  /** A text over a platform's limit is cut into a thread instead of refused. */
  @Column({ type: 'boolean', default: false })
  splitLongText!: boolean;

  /** Made with a test key: simulated delivery, and only test keys see it. */
  @Column({ type: 'boolean', default: false })
  test!: boolean;

  @Index()
  @Column({ type: 'varchar', length: 16 })
  status!: PostStatus;

  @TimestampColumn()
  scheduledAt!: DbTimestamp | null;

  @TimestampColumn()
  publishedAt!: DbTimestamp | null;

  /** Bumped by each publication trigger; jobs are `post:<id>:<attempt>`: older ones do nothing. */
  @Column({ type: 'int', default: 0 })
  publishAttempt!: number;

  /** The attempt a worker last claimed; behind publishAttempt while no worker has taken it. */
  @Column({ type: 'int', nullable: true })
  claimedAttempt!: number | null;

  @CreatedAtColumn()
  createdAt!: DbTimestamp;

  @TimestampColumn({ nullable: false, default: () => 'now()' })
  updatedAt!: DbTimestamp;

  @OneToMany(() => PostTarget, (target) => target.post)
  targets?: PostTarget[];

  @OneToMany(() => PostMedia, (media) => media.post)
  mediaFiles?: PostMedia[];
}
