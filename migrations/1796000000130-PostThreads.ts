import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * posts.thread: the further messages of a post as given, `[{text, media_ids}]`, each published
 * as a reply to the one before; posts.split_long_text: a text over a platform's limit is cut into
 * a thread instead of refused.
 */
export class PostThreads1796000000130 implements MigrationInterface {
  name = 'PostThreads1796000000130';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "posts" ADD "thread" jsonb NOT NULL DEFAULT '[]'`);
    await queryRunner.query(
      `ALTER TABLE "posts" ADD "split_long_text" boolean NOT NULL DEFAULT false`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "posts" DROP COLUMN "split_long_text"`);
    await queryRunner.query(`ALTER TABLE "posts" DROP COLUMN "thread"`);
  }
}
