import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * idempotency_keys loses its foreign key to api_keys: checking it locked the API key's row
 * (FOR KEY SHARE) at every claim, so concurrent keyed requests of one API key built a MultiXact
 * on that row each time. A deleted API key's rows are unreachable (ids are never reused) and are
 * purged when they expire.
 */
export class IdempotencyKeysWithoutForeignKey1795413241169 implements MigrationInterface {
  name = 'IdempotencyKeysWithoutForeignKey1795413241169';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            ALTER TABLE "idempotency_keys" DROP CONSTRAINT "FK_df33199f3504b21d6dfc3ae686d"
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            DELETE FROM "idempotency_keys" k
             WHERE NOT EXISTS (SELECT 1 FROM "api_keys" a WHERE a.id = k.api_key_id)
        `);
    await queryRunner.query(`
            ALTER TABLE "idempotency_keys"
            ADD CONSTRAINT "FK_df33199f3504b21d6dfc3ae686d" FOREIGN KEY ("api_key_id") REFERENCES "api_keys"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
  }
}
