import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { CreatedAtColumn, type DbTimestamp } from '../../infrastructure/database/timestamps';

@Entity('users')
export class User {
  @PrimaryGeneratedColumn()
  id!: number;

  /** Stored lower-cased; unique. */
  @Index({ unique: true })
  @Column({ type: 'varchar', length: 254 })
  email!: string;

  @Column({ type: 'varchar', length: 200 })
  name!: string;

  /** scrypt$… from PasswordHasher; never the password. */
  @Column({ type: 'varchar', length: 255 })
  passwordHash!: string;

  /** May create API keys. */
  @Column({ type: 'boolean', default: false })
  isAdmin!: boolean;

  /** The queue dashboard and its actions over every tenant. */
  @Column({ type: 'boolean', default: false })
  isOperator!: boolean;

  @CreatedAtColumn()
  createdAt!: DbTimestamp;
}
