import { MigrationInterface, QueryRunner } from 'typeorm';

export class Posts1795334585659 implements MigrationInterface {
  name = 'Posts1795334585659';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            CREATE TABLE "post_targets" (
                "id" SERIAL NOT NULL,
                "post_id" integer NOT NULL,
                "channel_id" integer,
                "platform" character varying(32) NOT NULL,
                "account_id" integer NOT NULL,
                "chat_id" character varying(64) NOT NULL,
                "position" integer NOT NULL,
                "status" character varying(16) NOT NULL DEFAULT 'pending',
                "error_code" character varying(64),
                "error_message" text,
                "message_ids" jsonb NOT NULL DEFAULT '[]',
                "steps_done" integer NOT NULL DEFAULT '0',
                "sending_since" TIMESTAMP(6) WITH TIME ZONE,
                "not_before" TIMESTAMP(6) WITH TIME ZONE,
                "failures" integer NOT NULL DEFAULT '0',
                "published_at" TIMESTAMP(6) WITH TIME ZONE,
                CONSTRAINT "UQ_c20409916546f4d74368efa5c82" UNIQUE ("post_id", "account_id", "chat_id"),
                CONSTRAINT "PK_ab5ca61ef403b13ea38f944bd92" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE INDEX "IDX_3d29022d9f716f9476cf9caa72" ON "post_targets" ("post_id")
        `);
    await queryRunner.query(`
            CREATE TABLE "posts" (
                "id" SERIAL NOT NULL,
                "project_id" integer NOT NULL,
                "created_by_user_id" integer,
                "text" text NOT NULL DEFAULT '',
                "status" character varying(16) NOT NULL,
                "scheduled_at" TIMESTAMP(6) WITH TIME ZONE,
                "published_at" TIMESTAMP(6) WITH TIME ZONE,
                "publish_attempt" integer NOT NULL DEFAULT '0',
                "created_at" TIMESTAMP(6) WITH TIME ZONE NOT NULL DEFAULT now(),
                "updated_at" TIMESTAMP(6) WITH TIME ZONE NOT NULL DEFAULT now(),
                CONSTRAINT "PK_2829ac61eff60fcec60d7274b9e" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE INDEX "IDX_a69d9e2ae78ef7d100f8317ae0" ON "posts" ("status")
        `);
    await queryRunner.query(`
            CREATE INDEX "IDX_e8e3881039e5edb45cc78e8333" ON "posts" ("created_by_user_id", "created_at")
        `);
    await queryRunner.query(`
            CREATE INDEX "IDX_154e79090a643402430a4cf595" ON "posts" ("project_id", "created_at", "id")
        `);
    await queryRunner.query(`
            CREATE TABLE "post_media" (
                "id" SERIAL NOT NULL,
                "post_id" integer NOT NULL,
                "media_asset_id" integer NOT NULL,
                "position" integer NOT NULL,
                CONSTRAINT "PK_049edb1ce7ab3d2a98009b171d0" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE INDEX "IDX_aea15d667ead80f005b02147ce" ON "post_media" ("media_asset_id")
        `);
    await queryRunner.query(`
            CREATE UNIQUE INDEX "IDX_65bdafda737d9c4c6fccbf71f4" ON "post_media" ("post_id", "position")
        `);
    await queryRunner.query(`
            ALTER TABLE "post_targets"
            ADD CONSTRAINT "FK_3d29022d9f716f9476cf9caa72b" FOREIGN KEY ("post_id") REFERENCES "posts"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
    await queryRunner.query(`
            ALTER TABLE "post_targets"
            ADD CONSTRAINT "FK_a7b7c7c9f7b64e5cd279373608e" FOREIGN KEY ("channel_id") REFERENCES "channels"("id") ON DELETE
            SET NULL ON UPDATE NO ACTION
        `);
    await queryRunner.query(`
            ALTER TABLE "post_targets"
            ADD CONSTRAINT "FK_87f16d5605f710711ce990dc7e5" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
    await queryRunner.query(`
            ALTER TABLE "posts"
            ADD CONSTRAINT "FK_c8d39cb73b060fc2cff4257429a" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
    await queryRunner.query(`
            ALTER TABLE "posts"
            ADD CONSTRAINT "FK_65649ac127992f87046f0cd879c" FOREIGN KEY ("created_by_user_id") REFERENCES "users"("id") ON DELETE
            SET NULL ON UPDATE NO ACTION
        `);
    await queryRunner.query(`
            ALTER TABLE "post_media"
            ADD CONSTRAINT "FK_1eeb54a4fdfbe9db17899243cbe" FOREIGN KEY ("post_id") REFERENCES "posts"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
    await queryRunner.query(`
            ALTER TABLE "post_media"
            ADD CONSTRAINT "FK_aea15d667ead80f005b02147ce3" FOREIGN KEY ("media_asset_id") REFERENCES "media_assets"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            ALTER TABLE "post_media" DROP CONSTRAINT "FK_aea15d667ead80f005b02147ce3"
        `);
    await queryRunner.query(`
            ALTER TABLE "post_media" DROP CONSTRAINT "FK_1eeb54a4fdfbe9db17899243cbe"
        `);
    await queryRunner.query(`
            ALTER TABLE "posts" DROP CONSTRAINT "FK_65649ac127992f87046f0cd879c"
        `);
    await queryRunner.query(`
            ALTER TABLE "posts" DROP CONSTRAINT "FK_c8d39cb73b060fc2cff4257429a"
        `);
    await queryRunner.query(`
            ALTER TABLE "post_targets" DROP CONSTRAINT "FK_87f16d5605f710711ce990dc7e5"
        `);
    await queryRunner.query(`
            ALTER TABLE "post_targets" DROP CONSTRAINT "FK_a7b7c7c9f7b64e5cd279373608e"
        `);
    await queryRunner.query(`
            ALTER TABLE "post_targets" DROP CONSTRAINT "FK_3d29022d9f716f9476cf9caa72b"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."IDX_65bdafda737d9c4c6fccbf71f4"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."IDX_aea15d667ead80f005b02147ce"
        `);
    await queryRunner.query(`
            DROP TABLE "post_media"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."IDX_154e79090a643402430a4cf595"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."IDX_e8e3881039e5edb45cc78e8333"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."IDX_a69d9e2ae78ef7d100f8317ae0"
        `);
    await queryRunner.query(`
            DROP TABLE "posts"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."IDX_3d29022d9f716f9476cf9caa72"
        `);
    await queryRunner.query(`
            DROP TABLE "post_targets"
        `);
  }
}
