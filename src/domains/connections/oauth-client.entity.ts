import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { CreatedAtColumn, type DbTimestamp } from '../../infrastructure/database/timestamps';

/** A client Herald registered on an authorization server that registers them on request. */
@Entity('oauth_clients')
@Index(['platform', 'issuer', 'redirectUri'], { unique: true })
export class OAuthClientRow {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ type: 'varchar', length: 32 })
  platform!: string;

  /** The server's origin (an instance's, where each instance is its own server). */
  @Column({ type: 'varchar', length: 2048 })
  issuer!: string;

  @Column({ type: 'varchar', length: 2048 })
  redirectUri!: string;

  @Column({ type: 'varchar', length: 255 })
  clientId!: string;

  @Column({ type: 'text' })
  clientSecretEncrypted!: string;

  @CreatedAtColumn()
  createdAt!: DbTimestamp;
}
