import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { CreatedAtColumn, type DbTimestamp } from '../../infrastructure/database/timestamps';
import { Project } from '../projects/project.entity';
import type { SubscribableEvent } from './webhook-events';

/** A project's webhook endpoint. */
@Entity('webhooks')
export class Webhook {
  @PrimaryGeneratedColumn()
  id!: number;

  @Index()
  @Column({ type: 'int' })
  projectId!: number;

  @ManyToOne(() => Project, { onDelete: 'CASCADE' })
  @JoinColumn()
  project?: Project;

  @Column({ type: 'varchar', length: 2048 })
  url!: string;

  @Column({ type: 'text', array: true })
  events!: SubscribableEvent[];

  /** The `whsec_` signing secret, sealed like bot tokens; never stored in clear. */
  @Column({ type: 'text' })
  secretEncrypted!: string;

  @Column({ type: 'boolean', default: true })
  enabled!: boolean;

  /**
   * Made with a test key: it receives the events of test posts only, and only test keys see it.
   * A live webhook (live key or application API) receives live events only.
   */
  @Column({ type: 'boolean', default: false })
  test!: boolean;

  /** Why Herald disabled the endpoint; null while enabled. */
  @Column({ type: 'text', nullable: true })
  disabledReason!: string | null;

  /** Events in a row that failed every attempt; any success resets it. */
  @Column({ type: 'int', default: 0 })
  failedEvents!: number;

  @CreatedAtColumn()
  createdAt!: DbTimestamp;
}
