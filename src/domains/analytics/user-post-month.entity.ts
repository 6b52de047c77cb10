import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { User } from '../users/user.entity';

/**
 * How many live posts a user created in a calendar month (UTC), for `posts_this_month`. Kept by
 * triggers on `posts` in the statement that inserts, deletes or moves a post (migration
 * UserPostMonths), so usage reads one row however many posts there are, and the count cannot
 * drift from the rows it counts.
 */
@Entity('user_post_months')
export class UserPostMonth {
  @PrimaryColumn({ type: 'int' })
  userId!: number;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn()
  user?: User;

  /** The first day of the month, UTC. */
  @PrimaryColumn({ type: 'date' })
  month!: string;

  @Column({ type: 'int', default: 0 })
  posts!: number;
}
