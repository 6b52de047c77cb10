import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Removing an account disconnects it instead of deleting it: accounts.removed_at marks it, its
 * sealed credentials are erased (credentials_encrypted becomes nullable), and post_targets no
 * longer cascade from accounts, so every post keeps its targets and their delivery history.
 */
export class RemovedAccountsKeepHistory1796000000020 implements MigrationInterface {
  name = 'RemovedAccountsKeepHistory1796000000020';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "accounts" ADD "removed_at" TIMESTAMP(6) WITH TIME ZONE`);
    await queryRunner.query(
      `ALTER TABLE "accounts" ALTER COLUMN "credentials_encrypted" DROP NOT NULL`,
    );
    await queryRunner.query(
      `ALTER TABLE "post_targets" DROP CONSTRAINT "FK_87f16d5605f710711ce990dc7e5"`,
    );
    await queryRunner.query(
      `ALTER TABLE "post_targets" ADD CONSTRAINT "FK_87f16d5605f710711ce990dc7e5" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE NO ACTION ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "post_targets" DROP CONSTRAINT "FK_87f16d5605f710711ce990dc7e5"`,
    );
    await queryRunner.query(
      `ALTER TABLE "post_targets" ADD CONSTRAINT "FK_87f16d5605f710711ce990dc7e5" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(`DELETE FROM "accounts" WHERE "removed_at" IS NOT NULL`);
    await queryRunner.query(
      `ALTER TABLE "accounts" ALTER COLUMN "credentials_encrypted" SET NOT NULL`,
    );
    await queryRunner.query(`ALTER TABLE "accounts" DROP COLUMN "removed_at"`);
  }
}
