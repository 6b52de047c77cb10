import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * accounts.session_encrypted: a session the platform opened for the account (its access and
 * refresh tokens), sealed like the credentials and shared by every worker, so that a post never
 * opens a session of its own.
 */
export class AccountSessions1796000000001 implements MigrationInterface {
  name = 'AccountSessions1796000000001';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "accounts" ADD "session_encrypted" text`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "accounts" DROP COLUMN "session_encrypted"`);
  }
}
