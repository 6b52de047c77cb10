import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * post_targets.send_progress: `{step, value}`, what the platform made toward the target's current
 * step before its last call (a media container awaiting publication), so that a send whose
 * outcome was lost resumes from it and never publishes twice; cleared when the step is recorded.
 */
export class SendProgress1796000000120 implements MigrationInterface {
  name = 'SendProgress1796000000120';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "post_targets" ADD "send_progress" jsonb`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "post_targets" DROP COLUMN "send_progress"`);
  }
}
