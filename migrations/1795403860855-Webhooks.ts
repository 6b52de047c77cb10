import { MigrationInterface, QueryRunner } from 'typeorm';

export class Webhooks1795403860855 implements MigrationInterface {
  name = 'Webhooks1795403860855';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            CREATE TABLE "webhooks" (
                "id" SERIAL NOT NULL,
                "project_id" integer NOT NULL,
                "url" character varying(2048) NOT NULL,
                "events" text array NOT NULL,
                "secret_encrypted" text NOT NULL,
                "enabled" boolean NOT NULL DEFAULT true,
                "disabled_reason" text,
                "failed_events" integer NOT NULL DEFAULT '0',
                "created_at" TIMESTAMP(6) WITH TIME ZONE NOT NULL DEFAULT now(),
                CONSTRAINT "PK_9e8795cfc899ab7bdaa831e8527" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE INDEX "IDX_8b545b4c86913152b9da6e04b0" ON "webhooks" ("project_id")
        `);
    await queryRunner.query(`
            CREATE TABLE "webhook_deliveries" (
                "id" SERIAL NOT NULL,
                "webhook_id" integer NOT NULL,
                "event_id" character varying(40) NOT NULL,
                "event_type" character varying(64) NOT NULL,
                "attempt" integer NOT NULL,
                "status_code" integer,
                "error" text,
                "duration_ms" integer NOT NULL,
                "created_at" TIMESTAMP(6) WITH TIME ZONE NOT NULL DEFAULT now(),
                CONSTRAINT "PK_535dd409947fb6d8fc6dfc0112a" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE INDEX "IDX_04fa926c32b43d66134e059d76" ON "webhook_deliveries" ("created_at")
        `);
    await queryRunner.query(`
            CREATE INDEX "IDX_85aefb7b9cff1da38cb31ad1e6" ON "webhook_deliveries" ("webhook_id", "id")
        `);
    await queryRunner.query(`
            CREATE TABLE "webhook_events" (
                "id" character varying(40) NOT NULL,
                "project_id" integer NOT NULL,
                "type" character varying(64) NOT NULL,
                "post_id" integer,
                "data" jsonb,
                "created_at" TIMESTAMP(6) WITH TIME ZONE NOT NULL DEFAULT now(),
                CONSTRAINT "PK_4cba37e6a0acb5e1fc49c34ebfd" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE INDEX "IDX_4ac3e88afd51e7ac1734640ac5" ON "webhook_events" ("project_id")
        `);
    await queryRunner.query(`
            CREATE INDEX "IDX_e2ab7b13941d036f266481d7ce" ON "webhook_events" ("created_at")
        `);
    await queryRunner.query(`
            CREATE TABLE "webhook_sends" (
                "id" SERIAL NOT NULL,
                "event_id" character varying(40) NOT NULL,
                "webhook_id" integer NOT NULL,
                "status" character varying(16) NOT NULL DEFAULT 'pending',
                "attempts" integer NOT NULL DEFAULT '0',
                "next_attempt_at" TIMESTAMP(6) WITH TIME ZONE NOT NULL DEFAULT now(),
                "queued_attempt" integer,
                "locked_until" TIMESTAMP(6) WITH TIME ZONE,
                "created_at" TIMESTAMP(6) WITH TIME ZONE NOT NULL DEFAULT now(),
                CONSTRAINT "PK_551a3b41b3c08237b71ba2feb63" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE INDEX "IDX_0cc736c0ed888fe6ffc014245d" ON "webhook_sends" ("event_id")
        `);
    await queryRunner.query(`
            CREATE INDEX "IDX_de294a70b465cdffc9908a20f2" ON "webhook_sends" ("webhook_id")
        `);
    await queryRunner.query(`
            CREATE INDEX "IDX_webhook_sends_pending" ON "webhook_sends" ("next_attempt_at")
            WHERE "status" = 'pending'
        `);
    await queryRunner.query(`
            ALTER TABLE "webhooks"
            ADD CONSTRAINT "FK_8b545b4c86913152b9da6e04b08" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
    await queryRunner.query(`
            ALTER TABLE "webhook_deliveries"
            ADD CONSTRAINT "FK_a0286aeb96db651efd1ae2966f2" FOREIGN KEY ("webhook_id") REFERENCES "webhooks"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
    await queryRunner.query(`
            ALTER TABLE "webhook_events"
            ADD CONSTRAINT "FK_4ac3e88afd51e7ac1734640ac5a" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
    await queryRunner.query(`
            ALTER TABLE "webhook_sends"
            ADD CONSTRAINT "FK_0cc736c0ed888fe6ffc014245d5" FOREIGN KEY ("event_id") REFERENCES "webhook_events"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
    await queryRunner.query(`
            ALTER TABLE "webhook_sends"
            ADD CONSTRAINT "FK_de294a70b465cdffc9908a20f2d" FOREIGN KEY ("webhook_id") REFERENCES "webhooks"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
    // A committed send wakes the dispatcher (LISTEN webhook_sends); the sweep is the safety net.
    await queryRunner.query(`
            CREATE FUNCTION "webhook_sends_notify"() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                PERFORM pg_notify('webhook_sends', '');
                RETURN NULL;
            END $$
        `);
    await queryRunner.query(`
            CREATE TRIGGER "webhook_sends_notify" AFTER INSERT ON "webhook_sends"
            FOR EACH ROW EXECUTE FUNCTION "webhook_sends_notify"()
        `);
    // Webhooks add the webhooks:manage scope. Keys created with every scope get it too (they
    // keep being "every scope"); keys that named a subset keep exactly what they named.
    await queryRunner.query(`
            UPDATE "api_keys" SET "scopes" = array_append("scopes", 'webhooks:manage')
             WHERE "scopes" @> ARRAY['projects:read', 'media:write', 'posts:read', 'posts:write',
                                     'posts:publish', 'usage:read']::text[]
               AND NOT ('webhooks:manage' = ANY("scopes"))
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            UPDATE "api_keys" SET "scopes" = array_remove("scopes", 'webhooks:manage')
        `);
    await queryRunner.query(`
            DROP TRIGGER "webhook_sends_notify" ON "webhook_sends"
        `);
    await queryRunner.query(`
            DROP FUNCTION "webhook_sends_notify"()
        `);
    await queryRunner.query(`
            ALTER TABLE "webhook_sends" DROP CONSTRAINT "FK_de294a70b465cdffc9908a20f2d"
        `);
    await queryRunner.query(`
            ALTER TABLE "webhook_sends" DROP CONSTRAINT "FK_0cc736c0ed888fe6ffc014245d5"
        `);
    await queryRunner.query(`
            ALTER TABLE "webhook_events" DROP CONSTRAINT "FK_4ac3e88afd51e7ac1734640ac5a"
        `);
    await queryRunner.query(`
            ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "FK_a0286aeb96db651efd1ae2966f2"
        `);
    await queryRunner.query(`
            ALTER TABLE "webhooks" DROP CONSTRAINT "FK_8b545b4c86913152b9da6e04b08"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."IDX_webhook_sends_pending"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."IDX_de294a70b465cdffc9908a20f2"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."IDX_0cc736c0ed888fe6ffc014245d"
        `);
    await queryRunner.query(`
            DROP TABLE "webhook_sends"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."IDX_e2ab7b13941d036f266481d7ce"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."IDX_4ac3e88afd51e7ac1734640ac5"
        `);
    await queryRunner.query(`
            DROP TABLE "webhook_events"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."IDX_85aefb7b9cff1da38cb31ad1e6"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."IDX_04fa926c32b43d66134e059d76"
        `);
    await queryRunner.query(`
            DROP TABLE "webhook_deliveries"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."IDX_8b545b4c86913152b9da6e04b0"
        `);
    await queryRunner.query(`
            DROP TABLE "webhooks"
        `);
  }
}
