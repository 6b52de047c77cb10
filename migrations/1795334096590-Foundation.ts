import { MigrationInterface, QueryRunner } from 'typeorm';

export class Foundation1795334096590 implements MigrationInterface {
  name = 'Foundation1795334096590';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            CREATE TABLE "users" (
                "id" SERIAL NOT NULL,
                "email" character varying(254) NOT NULL,
                "name" character varying(200) NOT NULL,
                "password_hash" character varying(255) NOT NULL,
                "is_admin" boolean NOT NULL DEFAULT false,
                "created_at" TIMESTAMP(6) WITH TIME ZONE NOT NULL DEFAULT now(),
                CONSTRAINT "PK_a3ffb1c0c8416b9fc6f907b7433" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE UNIQUE INDEX "IDX_97672ac88f789774dd47f7c8be" ON "users" ("email")
        `);
    await queryRunner.query(`
            CREATE TABLE "projects" (
                "id" SERIAL NOT NULL,
                "name" character varying(200) NOT NULL,
                "timezone" character varying(64) NOT NULL,
                "owner_id" integer NOT NULL,
                "appearance" character varying(64),
                "wallpaper" character varying(2048),
                "created_at" TIMESTAMP(6) WITH TIME ZONE NOT NULL DEFAULT now(),
                CONSTRAINT "PK_6271df0a7aed1d6c0691ce6ac50" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE INDEX "IDX_b1bd2fbf5d0ef67319c91acb5c" ON "projects" ("owner_id")
        `);
    await queryRunner.query(`
            CREATE TABLE "accounts" (
                "id" SERIAL NOT NULL,
                "project_id" integer NOT NULL,
                "platform" character varying(32) NOT NULL,
                "external_id" character varying(64) NOT NULL,
                "title" character varying(255) NOT NULL,
                "username" character varying(255),
                "credentials_encrypted" text NOT NULL,
                "needs_reconnect" boolean NOT NULL DEFAULT false,
                "created_at" TIMESTAMP(6) WITH TIME ZONE NOT NULL DEFAULT now(),
                CONSTRAINT "PK_5a7a02c20412299d198e097a8fe" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE INDEX "IDX_4ebf3953cbede735e35388b62c" ON "accounts" ("project_id")
        `);
    await queryRunner.query(`
            CREATE TABLE "api_keys" (
                "id" SERIAL NOT NULL,
                "user_id" integer NOT NULL,
                "name" character varying(200) NOT NULL,
                "public_id" character varying(16) NOT NULL,
                "secret_hash" character(64) NOT NULL,
                "scopes" text array NOT NULL,
                "expires_at" TIMESTAMP(6) WITH TIME ZONE,
                "created_at" TIMESTAMP(6) WITH TIME ZONE NOT NULL DEFAULT now(),
                "last_used_at" TIMESTAMP(6) WITH TIME ZONE,
                "revoked_at" TIMESTAMP(6) WITH TIME ZONE,
                CONSTRAINT "PK_5c8a79801b44bd27b79228e1dad" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE INDEX "IDX_a3baee01d8408cd3c0f89a9a97" ON "api_keys" ("user_id")
        `);
    await queryRunner.query(`
            CREATE UNIQUE INDEX "IDX_ca1d0fcbf464097368a62ca351" ON "api_keys" ("public_id")
        `);
    await queryRunner.query(`
            CREATE TABLE "sessions" (
                "id" SERIAL NOT NULL,
                "user_id" integer NOT NULL,
                "token_hash" character(64) NOT NULL,
                "created_at" TIMESTAMP(6) WITH TIME ZONE NOT NULL DEFAULT now(),
                "expires_at" TIMESTAMP(6) WITH TIME ZONE NOT NULL,
                CONSTRAINT "PK_3238ef96f18b355b671619111bc" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE INDEX "IDX_085d540d9f418cfbdc7bd55bb1" ON "sessions" ("user_id")
        `);
    await queryRunner.query(`
            CREATE UNIQUE INDEX "IDX_abaa9e068cdd390bc5210f7988" ON "sessions" ("token_hash")
        `);
    await queryRunner.query(`
            CREATE TABLE "channels" (
                "id" SERIAL NOT NULL,
                "project_id" integer NOT NULL,
                "account_id" integer NOT NULL,
                "platform" character varying(32) NOT NULL,
                "channel_id" character varying(64) NOT NULL,
                "title" character varying(255) NOT NULL,
                "username" character varying(255),
                "created_at" TIMESTAMP(6) WITH TIME ZONE NOT NULL DEFAULT now(),
                CONSTRAINT "UQ_fcdd693f1d274f9a4bfb099094e" UNIQUE ("account_id", "channel_id"),
                CONSTRAINT "PK_bc603823f3f741359c2339389f9" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE INDEX "IDX_63c4e21cafd9504a7c139144d1" ON "channels" ("project_id")
        `);
    await queryRunner.query(`
            CREATE TABLE "project_members" (
                "project_id" integer NOT NULL,
                "user_id" integer NOT NULL,
                "role" character varying(16) NOT NULL,
                "can_view_content" boolean NOT NULL,
                "can_edit_content" boolean NOT NULL,
                "can_publish" boolean NOT NULL,
                "can_use_ai" boolean NOT NULL,
                "can_manage_templates" boolean NOT NULL,
                "can_view_analytics" boolean NOT NULL,
                "can_manage_accounts" boolean NOT NULL,
                "can_manage_team" boolean NOT NULL,
                "can_manage_settings" boolean NOT NULL,
                "created_at" TIMESTAMP(6) WITH TIME ZONE NOT NULL DEFAULT now(),
                CONSTRAINT "PK_b3f491d3a3f986106d281d8eb4b" PRIMARY KEY ("project_id", "user_id")
            )
        `);
    await queryRunner.query(`
            CREATE INDEX "IDX_e89aae80e010c2faa72e6a49ce" ON "project_members" ("user_id")
        `);
    await queryRunner.query(`
            ALTER TABLE "projects"
            ADD CONSTRAINT "FK_b1bd2fbf5d0ef67319c91acb5cf" FOREIGN KEY ("owner_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
    await queryRunner.query(`
            ALTER TABLE "accounts"
            ADD CONSTRAINT "FK_4ebf3953cbede735e35388b62c1" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
    await queryRunner.query(`
            ALTER TABLE "api_keys"
            ADD CONSTRAINT "FK_a3baee01d8408cd3c0f89a9a973" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
    await queryRunner.query(`
            ALTER TABLE "sessions"
            ADD CONSTRAINT "FK_085d540d9f418cfbdc7bd55bb19" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
    await queryRunner.query(`
            ALTER TABLE "channels"
            ADD CONSTRAINT "FK_63c4e21cafd9504a7c139144d1c" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
    await queryRunner.query(`
            ALTER TABLE "channels"
            ADD CONSTRAINT "FK_2504341d9e5966d73fa04f6321e" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
    await queryRunner.query(`
            ALTER TABLE "project_members"
            ADD CONSTRAINT "FK_b5729113570c20c7e214cf3f58d" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
    await queryRunner.query(`
            ALTER TABLE "project_members"
            ADD CONSTRAINT "FK_e89aae80e010c2faa72e6a49ce8" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            ALTER TABLE "project_members" DROP CONSTRAINT "FK_e89aae80e010c2faa72e6a49ce8"
        `);
    await queryRunner.query(`
            ALTER TABLE "project_members" DROP CONSTRAINT "FK_b5729113570c20c7e214cf3f58d"
        `);
    await queryRunner.query(`
            ALTER TABLE "channels" DROP CONSTRAINT "FK_2504341d9e5966d73fa04f6321e"
        `);
    await queryRunner.query(`
            ALTER TABLE "channels" DROP CONSTRAINT "FK_63c4e21cafd9504a7c139144d1c"
        `);
    await queryRunner.query(`
            ALTER TABLE "sessions" DROP CONSTRAINT "FK_085d540d9f418cfbdc7bd55bb19"
        `);
    await queryRunner.query(`
            ALTER TABLE "api_keys" DROP CONSTRAINT "FK_a3baee01d8408cd3c0f89a9a973"
        `);
    await queryRunner.query(`
            ALTER TABLE "accounts" DROP CONSTRAINT "FK_4ebf3953cbede735e35388b62c1"
        `);
    await queryRunner.query(`
            ALTER TABLE "projects" DROP CONSTRAINT "FK_b1bd2fbf5d0ef67319c91acb5cf"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."IDX_e89aae80e010c2faa72e6a49ce"
        `);
    await queryRunner.query(`
            DROP TABLE "project_members"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."IDX_63c4e21cafd9504a7c139144d1"
        `);
    await queryRunner.query(`
            DROP TABLE "channels"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."IDX_abaa9e068cdd390bc5210f7988"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."IDX_085d540d9f418cfbdc7bd55bb1"
        `);
    await queryRunner.query(`
            DROP TABLE "sessions"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."IDX_ca1d0fcbf464097368a62ca351"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."IDX_a3baee01d8408cd3c0f89a9a97"
        `);
    await queryRunner.query(`
            DROP TABLE "api_keys"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."IDX_4ebf3953cbede735e35388b62c"
        `);
    await queryRunner.query(`
            DROP TABLE "accounts"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."IDX_b1bd2fbf5d0ef67319c91acb5c"
        `);
    await queryRunner.query(`
            DROP TABLE "projects"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."IDX_97672ac88f789774dd47f7c8be"
        `);
    await queryRunner.query(`
            DROP TABLE "users"
        `);
  }
}
