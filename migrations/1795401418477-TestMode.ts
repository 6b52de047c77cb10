import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * API keys get a mode (`live`, `test`; docs/api-rules.md#test-mode); posts know whether a test key
 * made them.
 */
export class TestMode1795401418477 implements MigrationInterface {
  name = 'TestMode1795401418477';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            DROP INDEX "public"."IDX_154e79090a643402430a4cf595"
        `);
    await queryRunner.query(`
            ALTER TABLE "api_keys"
            ADD "mode" character varying(8) NOT NULL DEFAULT 'live'
        `);
    await queryRunner.query(`
            ALTER TABLE "posts"
            ADD "test" boolean NOT NULL DEFAULT false
        `);
    await queryRunner.query(`
            CREATE INDEX "IDX_faf84c83f86aae5d7017b104a9" ON "posts" ("project_id", "test", "created_at", "id")
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            DROP INDEX "public"."IDX_faf84c83f86aae5d7017b104a9"
        `);
    await queryRunner.query(`
            ALTER TABLE "posts" DROP COLUMN "test"
        `);
    await queryRunner.query(`
            ALTER TABLE "api_keys" DROP COLUMN "mode"
        `);
    await queryRunner.query(`
            CREATE INDEX "IDX_154e79090a643402430a4cf595" ON "posts" ("id", "project_id", "created_at")
        `);
  }
}
