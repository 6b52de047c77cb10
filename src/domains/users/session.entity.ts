import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import {
  CreatedAtColumn,
  type DbTimestamp,
  TimestampColumn,
} from '../../infrastructure/database/timestamps';
import { User } from './user.entity';

@Entity('sessions')
export class Session {
  @PrimaryGeneratedColumn()
  id!: number;

  @Index()
  @Column({ type: 'int' })
  userId!: number;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn()
  user?: User;

  /** HMAC-SHA-256 of the token, hex; the token itself is never stored. */
  @Index({ unique: true })
  @Column({ type: 'char', length: 64 })
  tokenHash!: string;

  @CreatedAtColumn()
  createdAt!: DbTimestamp;

  @TimestampColumn({ nullable: false })
  expiresAt!: DbTimestamp;

  /** Moved forward at most once an hour; a session unused for a week ends. */
  @TimestampColumn({ nullable: false, default: () => 'now()' })
  lastUsedAt!: DbTimestamp;
}
