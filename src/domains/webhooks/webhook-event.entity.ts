import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { CreatedAtColumn, type DbTimestamp } from '../../infrastructure/database/timestamps';
import { Project } from '../projects/project.entity';
import type { WebhookEventType } from './webhook-events';

/** The outbox, written by the statement that makes the change; its id is the `webhook-id`. */
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

  /** No foreign key: the event outlives a deleted post. */
  @Column({ type: 'int', nullable: true })
  postId!: number | null;

  /** A post event's is filled from the post right after the commit. */
  @Column({ type: 'jsonb', nullable: true })
  data!: Record<string, unknown> | null;

  /** Events of test posts go to test webhooks only. */
  @Column({ type: 'boolean', default: false })
  test!: boolean;

  @Index()
  @CreatedAtColumn()
  createdAt!: DbTimestamp;
}
