import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * posts.claimed_attempt: the publish attempt a worker last claimed, so that a post in
 * `publishing` that no worker has taken yet (published with POST publish) can be told from one
 * being delivered, and the pipeline can say when it stalls.
 */
export class PostsClaimedAttempt1796000000022 implements MigrationInterface {
  name = 'PostsClaimedAttempt1796000000022';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "posts" ADD "claimed_attempt" integer`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "posts" DROP COLUMN "claimed_attempt"`);
  }
}
