import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The scheduled posts in the order they are due, so that the sweep giving queue jobs to the posts
 * coming within the schedule horizon reads only those, however many are scheduled further ahead.
 * Built CONCURRENTLY, outside a transaction, so a big table keeps taking writes meanwhile; an
 * index left INVALID by a build that failed is dropped and built again.
 */
export class ScheduledPostsDue1796000000146 implements MigrationInterface {
  name = 'ScheduledPostsDue1796000000146';
  transaction = false;

  public async up(queryRunner: QueryRunner): Promise<void> {
    const invalid = (await queryRunner.query(
      `SELECT 1 FROM pg_index WHERE indexrelid = to_regclass('public."IDX_posts_scheduled_due"') AND NOT indisvalid`,
    )) as unknown[];
    if (invalid.length > 0)
      await queryRunner.query(`DROP INDEX CONCURRENTLY "public"."IDX_posts_scheduled_due"`);
    await queryRunner.query(
      `CREATE INDEX CONCURRENTLY IF NOT EXISTS "IDX_posts_scheduled_due" ON "posts" ("scheduled_at", "id") WHERE "status" = 'scheduled'`,
    );
  }

  // Plain DROP INDEX: the TypeORM CLI reverts inside a transaction.
  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX IF EXISTS "public"."IDX_posts_scheduled_due"`);
  }
}
