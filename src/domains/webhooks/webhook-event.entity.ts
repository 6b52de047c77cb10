import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { CreatedAtColumn, type DbTimestamp } from '../../infrastructure/database/timestamps';
import { Project } from '../projects/project.entity';
import type { WebhookEventType } from './webhook-events';

/**
 * The transactional outbox: one row per event, written by the statement that makes the
 * state change, so an event exists exactly when its change was committed. Its id is the
 * `webhook-id` of every attempt to every endpoint.
 */
@Entity('webhook_events')
export class WebhookEvent {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id!: string;

  @Index()
  @Column({ type: 'int' })
  projectId!: number;

  @ManyToOne(() => Project, { onDelete: 'CASCADE' })
  @JoinColumn()
  project?: Project;

  @Column({ type: 'varchar', length: 64 })
  type!: WebhookEventType;

  /** The post of a post event (no foreign key: the event outlives a deleted post). */
  @Column({ type: 'int', nullable: true })
  postId!: number | null;

  /** The payload's `data`; a post event's is filled from the post right after the commit. */
  @Column({ type: 'jsonb', nullable: true })
  data!: Record<string, unknown> | null;

  /** Events of test posts are test events, and go to test webhooks only. */
  @Column({ type: 'boolean', default: false })
  test!: boolean;

  @Index()
  @CreatedAtColumn()
  createdAt!: DbTimestamp;
}
