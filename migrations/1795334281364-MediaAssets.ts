import { MigrationInterface, QueryRunner } from 'typeorm';

export class MediaAssets1795334281364 implements MigrationInterface {
  name = 'MediaAssets1795334281364';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            CREATE TABLE "media_assets" (
                "id" SERIAL NOT NULL,
                "project_id" integer NOT NULL,
                "uploaded_by_id" integer,
                "type" character varying(16) NOT NULL,
                "filename" character varying(255) NOT NULL,
                "mime_type" character varying(100) NOT NULL,
                "size_bytes" bigint NOT NULL,
                "storage_path" character varying(512) NOT NULL,
                "created_at" TIMESTAMP(6) WITH TIME ZONE NOT NULL DEFAULT now(),
                CONSTRAINT "PK_ca47e9f67a5e5d8af1e75d66ee6" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE INDEX "IDX_3bf45acc3bc7dab569ac1dcd99" ON "media_assets" ("project_id")
        `);
    await queryRunner.query(`
            CREATE UNIQUE INDEX "IDX_25cabf0c46005991e8b55df79f" ON "media_assets" ("storage_path")
        `);
    await queryRunner.query(`
            ALTER TABLE "media_assets"
            ADD CONSTRAINT "FK_3bf45acc3bc7dab569ac1dcd99f" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
    await queryRunner.query(`
            ALTER TABLE "media_assets"
            ADD CONSTRAINT "FK_9c6b616b5c373c54a0619460eb6" FOREIGN KEY ("uploaded_by_id") REFERENCES "users"("id") ON DELETE
            SET NULL ON UPDATE NO ACTION
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            ALTER TABLE "media_assets" DROP CONSTRAINT "FK_9c6b616b5c373c54a0619460eb6"
        `);
    await queryRunner.query(`
            ALTER TABLE "media_assets" DROP CONSTRAINT "FK_3bf45acc3bc7dab569ac1dcd99f"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."IDX_25cabf0c46005991e8b55df79f"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."IDX_3bf45acc3bc7dab569ac1dcd99"
        `);
    await queryRunner.query(`
            DROP TABLE "media_assets"
        `);
  }
}
