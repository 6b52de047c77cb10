import { MigrationInterface, QueryRunner } from 'typeorm';

export class PostTemplates1795334625488 implements MigrationInterface {
  name = 'PostTemplates1795334625488';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            CREATE TABLE "post_templates" (
                "id" SERIAL NOT NULL,
                "project_id" integer NOT NULL,
                "name" character varying(200) NOT NULL,
                "text" text NOT NULL,
                "created_by_id" integer,
                "created_at" TIMESTAMP(6) WITH TIME ZONE NOT NULL DEFAULT now(),
                "updated_at" TIMESTAMP(6) WITH TIME ZONE NOT NULL DEFAULT now(),
                CONSTRAINT "PK_1110f1ec806da78a0fad6f01e11" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE INDEX "IDX_9dbd9631f342231070b9e430f8" ON "post_templates" ("project_id")
        `);
    await queryRunner.query(`
            ALTER TABLE "post_templates"
            ADD CONSTRAINT "FK_9dbd9631f342231070b9e430f87" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
    await queryRunner.query(`
            ALTER TABLE "post_templates"
            ADD CONSTRAINT "FK_cb90d47cfc7bc89a8a01bd984eb" FOREIGN KEY ("created_by_id") REFERENCES "users"("id") ON DELETE
            SET NULL ON UPDATE NO ACTION
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            ALTER TABLE "post_templates" DROP CONSTRAINT "FK_cb90d47cfc7bc89a8a01bd984eb"
        `);
    await queryRunner.query(`
            ALTER TABLE "post_templates" DROP CONSTRAINT "FK_9dbd9631f342231070b9e430f87"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."IDX_9dbd9631f342231070b9e430f8"
        `);
    await queryRunner.query(`
            DROP TABLE "post_templates"
        `);
  }
}
