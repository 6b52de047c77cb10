import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * post_targets.messages: every message a target became, `[{id, url}]` in order, the id as the
 * platform gives it (always text) and its public link. `message_ids` stays as it was (Telegram's
 * integer ids). Targets delivered before take their messages from `message_ids`, with the links
 * Telegram gives: `t.me/<username>/<id>` in a public chat, `t.me/c/<id without -100>/<id>` in a
 * private supergroup or channel, none elsewhere, and test posts' links under example.invalid.
 */
export class PostTargetMessages1795480000000 implements MigrationInterface {
  name = 'PostTargetMessages1795480000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            ALTER TABLE "post_targets" ADD "messages" jsonb NOT NULL DEFAULT '[]'
        `);
    await queryRunner.query(`
            UPDATE post_targets t
               SET messages = (
                 SELECT jsonb_agg(jsonb_build_object('id', m.id, 'url',
                          CASE
                            WHEN p.test THEN 'https://example.invalid/telegram/' || t.chat_id || '/' || m.id
                            WHEN c.username IS NOT NULL THEN 'https://t.me/' || c.username || '/' || m.id
                            WHEN t.chat_id LIKE '-100_%' THEN 'https://t.me/c/' || substr(t.chat_id, 5) || '/' || m.id
                          END) ORDER BY m.ord)
                   FROM jsonb_array_elements_text(t.message_ids) WITH ORDINALITY AS m(id, ord)
                   LEFT JOIN channels c ON c.id = t.channel_id)
              FROM posts p
             WHERE p.id = t.post_id AND t.platform = 'telegram' AND t.message_ids <> '[]'
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            ALTER TABLE "post_targets" DROP COLUMN "messages"
        `);
  }
}
