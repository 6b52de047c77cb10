import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { CreatedAtColumn, type DbTimestamp } from '../../infrastructure/database/timestamps';
import { Project } from '../projects/project.entity';
import { User } from '../users/user.entity';

/** A started connection, until its callback uses it (once) or it expires (10 minutes). */
@Entity('oauth_states')
export class OAuthState {
  /** Keyed hash of the state: the state itself is the callback's only credential. */
  @PrimaryColumn({ type: 'varchar', length: 64 })
  stateHash!: string;

  @Index()
  @Column({ type: 'int' })
  projectId!: number;

  @ManyToOne(() => Project, { onDelete: 'CASCADE' })
  @JoinColumn()
  project?: Project;

  @Column({ type: 'varchar', length: 32 })
  platform!: string;

  @Index()
  @Column({ type: 'int' })
  userId!: number;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn()
  user?: User;

  /** The PKCE verifier, sealed. */
  @Column({ type: 'text' })
  codeVerifierEncrypted!: string;

  @Column({ type: 'varchar', length: 2048, nullable: true })
  redirectUrl!: string | null;

  /** What the platform's flow keeps from the start for the callback (an instance's origin). */
  @Column({ type: 'jsonb' })
  context!: Record<string, string>;

  @Index()
  @Column({ type: 'timestamptz', precision: 6 })
  expiresAt!: DbTimestamp;

  @CreatedAtColumn()
  createdAt!: DbTimestamp;
}
