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
import { PostMedia } from './post-media.entity';
import { PostTarget } from './post-target.entity';

/**
 * A post of a project (docs/api-rules.md#post-states): its text, media, schedule and publication
 * state.
 */
@Entity('posts')
@Index(['projectId', 'test', 'createdAt', 'id'])
// The list filtered by status, in its date order: a page reads only the rows it shows.
@Index(['projectId', 'test', 'status', 'createdAt', 'id'])
@Index(['createdByUserId', 'createdAt'])
export class Post {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ type: 'int' })
  projectId!: number;

  @ManyToOne(() => Project, { onDelete: 'CASCADE' })
  @JoinColumn()
  project?: Project;

  /** Who created it, through either API (usage counts these); kept when the user is deleted. */
  @Column({ type: 'int', nullable: true })
  createdByUserId!: number | null;

  @ManyToOne(() => User, { onDelete: 'SET NULL' })
  @JoinColumn()
  createdByUser?: User;

  @Column({ type: 'text', default: '' })
  text!: string;

  /**
   * Made with a test key. A test post runs the whole pipeline with a simulated publisher,
   * and only test keys see it (as only live callers see live posts).
   */
  @Column({ type: 'boolean', default: false })
  test!: boolean;

  @Index()
  @Column({ type: 'varchar', length: 16 })
  status!: PostStatus;

  @TimestampColumn()
  scheduledAt!: DbTimestamp | null;

  @TimestampColumn()
  publishedAt!: DbTimestamp | null;

  /**
   * Bumped by every trigger of a publication (create with schedule or publish_now, publish,
   * reschedule). The queue job id is `post:<id>:<attempt>`, and a job of an older attempt finds
   * the state guard closed, so a superseded delayed job does nothing.
   */
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
