import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import {
  CreatedAtColumn,
  TimestampColumn,
  type DbTimestamp,
} from '../../infrastructure/database/timestamps';
import { WebhookEvent } from './webhook-event.entity';
import type { WebhookSendStatus } from './webhook-events';
import { Webhook } from './webhook.entity';

/** Its own state, so the sweep finds a lost job again; jobs are `send:<id>:<attempts>`. */
@Entity('webhook_sends')
@Index('IDX_webhook_sends_pending', ['nextAttemptAt'], { where: `"status" = 'pending'` })
export class WebhookSend {
  @PrimaryGeneratedColumn()
  id!: number;

  @Index()
  @Column({ type: 'varchar', length: 40 })
  eventId!: string;

  @ManyToOne(() => WebhookEvent, { onDelete: 'CASCADE' })
  @JoinColumn()
  event?: WebhookEvent;

  @Index()
  @Column({ type: 'int' })
  webhookId!: number;

  @ManyToOne(() => Webhook, { onDelete: 'CASCADE' })
  @JoinColumn()
  webhook?: Webhook;

  @Column({ type: 'varchar', length: 16, default: 'pending' })
  status!: WebhookSendStatus;

  @Column({ type: 'int', default: 0 })
  attempts!: number;

  @TimestampColumn({ nullable: false, default: () => 'now()' })
  nextAttemptAt!: DbTimestamp;

  /** Differs from `attempts` until the job was handed to the queue. */
  @Column({ type: 'int', nullable: true })
  queuedAttempt!: number | null;

  /** A worker that died lets it go when this passes. */
  @TimestampColumn()
  lockedUntil!: DbTimestamp | null;

  @CreatedAtColumn()
  createdAt!: DbTimestamp;
}
