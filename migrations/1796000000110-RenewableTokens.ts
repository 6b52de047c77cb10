import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Tokens that expire (accounts connected through OAuth): when the access token expires, when it
 * was obtained (its life, for the renewal sweep), whether it can be renewed, after when nothing
 * can renew it (reconnect_by), and the sweep's backoff after a renewal that failed for a while.
 */
export class RenewableTokens1796000000110 implements MigrationInterface {
  name = 'RenewableTokens1796000000110';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "accounts"
         ADD "token_expires_at" TIMESTAMP(6) WITH TIME ZONE,
         ADD "token_obtained_at" TIMESTAMP(6) WITH TIME ZONE,
         ADD "token_renewable" boolean NOT NULL DEFAULT false,
         ADD "reconnect_by" TIMESTAMP(6) WITH TIME ZONE,
         ADD "renewal_failures" integer NOT NULL DEFAULT 0,
         ADD "renew_after" TIMESTAMP(6) WITH TIME ZONE`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_accounts_renewable_tokens" ON "accounts" ("token_expires_at")
        WHERE "token_renewable" AND "removed_at" IS NULL AND NOT "needs_reconnect"`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "IDX_accounts_renewable_tokens"`);
    await queryRunner.query(
      `ALTER TABLE "accounts" DROP "renew_after", DROP "renewal_failures", DROP "reconnect_by",
         DROP "token_renewable", DROP "token_obtained_at", DROP "token_expires_at"`,
    );
  }
}
