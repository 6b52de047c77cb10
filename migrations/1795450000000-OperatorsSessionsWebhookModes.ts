import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Operators apart from administrators; sessions that end after a week unused; webhooks and their
 * events in the mode (test or live) of the key that made them. Every existing row is live.
 */
export class OperatorsSessionsWebhookModes1795450000000 implements MigrationInterface {
  name = 'OperatorsSessionsWebhookModes1795450000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "users" ADD "is_operator" boolean NOT NULL DEFAULT false`);
    await queryRunner.query(
      `ALTER TABLE "sessions" ADD "last_used_at" TIMESTAMP(6) WITH TIME ZONE NOT NULL DEFAULT now()`,
    );
    await queryRunner.query(`ALTER TABLE "webhooks" ADD "test" boolean NOT NULL DEFAULT false`);
    await queryRunner.query(
      `ALTER TABLE "webhook_events" ADD "test" boolean NOT NULL DEFAULT false`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "webhook_events" DROP COLUMN "test"`);
    await queryRunner.query(`ALTER TABLE "webhooks" DROP COLUMN "test"`);
    await queryRunner.query(`ALTER TABLE "sessions" DROP COLUMN "last_used_at"`);
    await queryRunner.query(`ALTER TABLE "users" DROP COLUMN "is_operator"`);
  }
}
