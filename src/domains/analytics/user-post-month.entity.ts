import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { User } from '../users/user.entity';

/** Live posts per user and UTC month, kept by triggers on `posts` (migration UserPostMonths). */
@Entity('user_post_months')
export class UserPostMonth {
  @PrimaryColumn({ type: 'int' })
  userId!: number;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn()
  user?: User;

  @PrimaryColumn({ type: 'date' })
  month!: string;

  @Column({ type: 'int', default: 0 })
  posts!: number;
}
