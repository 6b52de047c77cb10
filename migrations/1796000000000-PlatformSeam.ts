import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What platforms beyond the first need kept:
 * - post_targets.delivery_key: a TID (13 characters of base32-sortable, the microseconds of its
 *   making and 10 random bits), made when the target is stored, so that every try of a send carries
 *   the same key and a platform that recognises it (a nonce, an Idempotency-Key, a record key)
 *   never posts twice. herald_tid() makes one.
 * - channels.url: the channel's public link as its platform gave it when it was added (some links
 *   need more than the channel's id, such as a Discord server's id).
 * - accounts.limits: the account's own limits where they differ per account (a Mastodon instance's),
 *   read when it is connected; null where the platform's apply.
 */
export class PlatformSeam1796000000000 implements MigrationInterface {
  name = 'PlatformSeam1796000000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            CREATE FUNCTION herald_tid() RETURNS varchar LANGUAGE plpgsql VOLATILE AS $$
            DECLARE
              alphabet constant text := '234567abcdefghijklmnopqrstuvwxyz';
              n bigint := (floor(extract(epoch FROM clock_timestamp()) * 1000000)::bigint << 10)
                          | floor(random() * 1024)::bigint;
              tid text := '';
            BEGIN
              FOR i IN 1..13 LOOP
                tid := substr(alphabet, (n & 31)::int + 1, 1) || tid;
                n := n >> 5;
              END LOOP;
              RETURN tid;
            END $$
        `);
    await queryRunner.query(`
            ALTER TABLE "post_targets" ADD "delivery_key" varchar(13) NOT NULL DEFAULT herald_tid()
        `);
    await queryRunner.query(`ALTER TABLE "channels" ADD "url" text`);
    await queryRunner.query(`ALTER TABLE "accounts" ADD "limits" jsonb`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "accounts" DROP COLUMN "limits"`);
    await queryRunner.query(`ALTER TABLE "channels" DROP COLUMN "url"`);
    await queryRunner.query(`ALTER TABLE "post_targets" DROP COLUMN "delivery_key"`);
    await queryRunner.query(`DROP FUNCTION herald_tid()`);
  }
}
