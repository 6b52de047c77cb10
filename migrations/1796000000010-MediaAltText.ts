import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * media_assets.alt_text: what the image shows, for readers who cannot see it (at most 1,500
 * characters, null when none was given), sent as its description by every platform that takes one.
 */
export class MediaAltText1796000000010 implements MigrationInterface {
  name = 'MediaAltText1796000000010';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "media_assets" ADD "alt_text" character varying(1500)`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "media_assets" DROP COLUMN "alt_text"`);
  }
}
