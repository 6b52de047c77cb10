import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * channels.missing_since: when the platform last answered a send that the channel does not exist
 * (deleted, or the account no longer in it); null while it is fine. The channel list shows it.
 */
export class ChannelsMissingOnPlatform1796000000021 implements MigrationInterface {
  name = 'ChannelsMissingOnPlatform1796000000021';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "channels" ADD "missing_since" TIMESTAMP(6) WITH TIME ZONE`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "channels" DROP COLUMN "missing_since"`);
  }
}
