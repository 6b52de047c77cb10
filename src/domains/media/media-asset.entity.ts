import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { CreatedAtColumn, type DbTimestamp } from '../../infrastructure/database/timestamps';
import { Project } from '../projects/project.entity';
import { User } from '../users/user.entity';

export type MediaType = 'image' | 'video';

/** In characters (as long as the platforms' descriptions go). */
export const MAX_ALT_TEXT_LENGTH = 1500;

/** docs/api-rules.md#media; posts refer to it by id in `media_ids`. */
@Entity('media_assets')
export class MediaAsset {
  @PrimaryGeneratedColumn()
  id!: number;

  @Index()
  @Column({ type: 'int' })
  projectId!: number;

  @ManyToOne(() => Project, { onDelete: 'CASCADE' })
  @JoinColumn()
  project?: Project;

  /** Kept when the user is deleted. */
  @Index()
  @Column({ type: 'int', nullable: true })
  uploadedById!: number | null;

  @ManyToOne(() => User, { onDelete: 'SET NULL' })
  @JoinColumn()
  uploadedBy?: User;

  /** From the file's bytes, never from the client. */
  @Column({ type: 'varchar', length: 16 })
  type!: MediaType;

  @Column({ type: 'varchar', length: 255 })
  filename!: string;

  @Column({ type: 'varchar', length: 100 })
  mimeType!: string;

  /** Null when none was given. */
  @Column({ type: 'varchar', length: MAX_ALT_TEXT_LENGTH, nullable: true })
  altText!: string | null;

  @Column({ type: 'bigint', transformer: { to: (v: number) => v, from: (v: string) => Number(v) } })
  sizeBytes!: number;

  @Index({ unique: true })
  @Column({ type: 'varchar', length: 512 })
  storagePath!: string;

  @CreatedAtColumn()
  createdAt!: DbTimestamp;
}
