import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { CreatedAtColumn, type DbTimestamp } from '../../infrastructure/database/timestamps';
import { Project } from '../projects/project.entity';
import type { SubscribableEvent } from './webhook-events';

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

  /** Sealed like bot tokens; never stored in clear. */
  @Column({ type: 'text' })
  secretEncrypted!: string;

  @Column({ type: 'boolean', default: true })
  enabled!: boolean;

  /** Test webhooks get test posts' events and only test keys see them; live ones live events. */
  @Column({ type: 'boolean', default: false })
  test!: boolean;

  /** Null while enabled. */
  @Column({ type: 'text', nullable: true })
  disabledReason!: string | null;

  /** Any success resets it. */
  @Column({ type: 'int', default: 0 })
  failedEvents!: number;

  @CreatedAtColumn()
  createdAt!: DbTimestamp;
}
