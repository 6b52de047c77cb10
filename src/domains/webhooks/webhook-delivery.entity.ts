import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { CreatedAtColumn, type DbTimestamp } from '../../infrastructure/database/timestamps';
import type { WebhookEventType } from './webhook-events';
import { Webhook } from './webhook.entity';

/** The delivery log: one row per attempt, kept 30 days. */
@Entity('webhook_deliveries')
@Index(['webhookId', 'id'])
export class WebhookDelivery {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ type: 'int' })
  webhookId!: number;

  @ManyToOne(() => Webhook, { onDelete: 'CASCADE' })
  @JoinColumn()
  webhook?: Webhook;

  @Column({ type: 'varchar', length: 40 })
  eventId!: string;

  @Column({ type: 'varchar', length: 64 })
  eventType!: WebhookEventType;

  /** 1 for the first attempt. */
  @Column({ type: 'int' })
  attempt!: number;

  /** The receiver's HTTP status; null when it never answered. */
  @Column({ type: 'int', nullable: true })
  statusCode!: number | null;

  @Column({ type: 'text', nullable: true })
  error!: string | null;

  @Column({ type: 'int' })
  durationMs!: number;

  @Index()
  @CreatedAtColumn()
  createdAt!: DbTimestamp;
}
