import { MigrationInterface, QueryRunner } from 'typeorm';

export class IdempotencyKeys1795402737631 implements MigrationInterface {
  name = 'IdempotencyKeys1795402737631';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            CREATE TABLE "idempotency_keys" (
                "api_key_id" integer NOT NULL,
                "key" character varying(255) NOT NULL,
                "fingerprint" character varying(64),
                "response_status" integer,
                "response_body" jsonb,
                "created_at" TIMESTAMP(6) WITH TIME ZONE NOT NULL DEFAULT now(),
                "expires_at" TIMESTAMP(6) WITH TIME ZONE NOT NULL,
                CONSTRAINT "PK_913ded668c974d019eb0196e639" PRIMARY KEY ("api_key_id", "key")
            )
        `);
    await queryRunner.query(`
            CREATE INDEX "IDX_e5fc0731b6752a8e9194fa265e" ON "idempotency_keys" ("expires_at")
        `);
    await queryRunner.query(`
            ALTER TABLE "idempotency_keys"
            ADD CONSTRAINT "FK_df33199f3504b21d6dfc3ae686d" FOREIGN KEY ("api_key_id") REFERENCES "api_keys"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            ALTER TABLE "idempotency_keys" DROP CONSTRAINT "FK_df33199f3504b21d6dfc3ae686d"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."IDX_e5fc0731b6752a8e9194fa265e"
        `);
    await queryRunner.query(`
            DROP TABLE "idempotency_keys"
        `);
  }
}
