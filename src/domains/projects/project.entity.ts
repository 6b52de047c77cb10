import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { CreatedAtColumn, type DbTimestamp } from '../../infrastructure/database/timestamps';
import { User } from '../users/user.entity';

@Entity('projects')
export class Project {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ type: 'varchar', length: 200 })
  name!: string;

  /** IANA time-zone name. */
  @Column({ type: 'varchar', length: 64 })
  timezone!: string;

  @Index()
  @Column({ type: 'int' })
  ownerId!: number;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn()
  owner?: User;

  @Column({ type: 'varchar', length: 64, nullable: true })
  appearance!: string | null;

  @Column({ type: 'varchar', length: 2048, nullable: true })
  wallpaper!: string | null;

  @CreatedAtColumn()
  createdAt!: DbTimestamp;
}
