import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * post_targets loses its index on post_id alone: the unique index on (post_id, account_id,
 * chat_id) leads with post_id and answers the same lookups (a post's targets, the cascade from
 * posts), while every target inserted, and every update of one that is not HOT, wrote both.
 */
export class PostTargetsWithoutPostIdIndex1795420000000 implements MigrationInterface {
  name = 'PostTargetsWithoutPostIdIndex1795420000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            DROP INDEX "public"."IDX_3d29022d9f716f9476cf9caa72"
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            CREATE INDEX "IDX_3d29022d9f716f9476cf9caa72" ON "post_targets" ("post_id")
        `);
  }
}
