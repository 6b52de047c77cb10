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
import type { PlatformName } from '../platforms/platforms';
import {
  CreatedAtColumn,
  TimestampColumn,
  type DbTimestamp,
} from '../../infrastructure/database/timestamps';
import { Project } from '../projects/project.entity';

/** A destination of an account (a chat, a channel, a timeline) it posts to. */
@Entity('channels')
@Unique(['accountId', 'channelId'])
export class Channel {
  @PrimaryGeneratedColumn()
  id!: number;

  @Index()
  @Column({ type: 'int' })
  projectId!: number;

  @ManyToOne(() => Project, { onDelete: 'CASCADE' })
  @JoinColumn()
  project?: Project;

  @Column({ type: 'int' })
  accountId!: number;

  @ManyToOne(() => Account, { onDelete: 'CASCADE' })
  @JoinColumn()
  account?: Account;

  @Column({ type: 'varchar', length: 32 })
  platform!: PlatformName;

  /** The channel's id on the platform, as text (it may be negative, or hold colons). */
  @Column({ type: 'varchar', length: 64 })
  channelId!: string;

  @Column({ type: 'varchar', length: 255 })
  title!: string;

  @Column({ type: 'varchar', length: 255, nullable: true })
  username!: string | null;

  /** The channel's public link as its platform gave it when it was added; null where it gave none. */
  @Column({ type: 'text', nullable: true })
  url!: string | null;

  @CreatedAtColumn()
  createdAt!: DbTimestamp;

  /** When a send was last answered that the channel does not exist on its platform; null while fine. */
  @TimestampColumn()
  missingSince!: DbTimestamp | null;
}
