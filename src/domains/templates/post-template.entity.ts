import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import {
  CreatedAtColumn,
  type DbTimestamp,
  TimestampColumn,
} from '../../infrastructure/database/timestamps';
import { Project } from '../projects/project.entity';
import { User } from '../users/user.entity';

/** A reusable post text of a project, served to its owner and holders of can_manage_templates. */
@Entity('post_templates')
export class PostTemplate {
  @PrimaryGeneratedColumn()
  id!: number;

  @Index()
  @Column({ type: 'int' })
  projectId!: number;

  @ManyToOne(() => Project, { onDelete: 'CASCADE' })
  @JoinColumn()
  project?: Project;

  @Column({ type: 'varchar', length: 200 })
  name!: string;

  @Column({ type: 'text' })
  text!: string;

  /** Who created it; kept when the user is deleted. */
  @Index()
  @Column({ type: 'int', nullable: true })
  createdById!: number | null;

  @ManyToOne(() => User, { onDelete: 'SET NULL' })
  @JoinColumn()
  createdBy?: User;

  @CreatedAtColumn()
  createdAt!: DbTimestamp;

  @TimestampColumn({ nullable: false, default: () => 'now()' })
  updatedAt!: DbTimestamp;
}
