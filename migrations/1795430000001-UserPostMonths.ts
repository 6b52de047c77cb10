import { MigrationInterface, QueryRunner } from 'typeorm';

/** The month a post counts in: that of its created_at, UTC. */
const MONTH_OF = (row: string) => `date_trunc('month', ${row}.created_at AT TIME ZONE 'UTC')::date`;

/**
 * user_post_months: each user's live posts per calendar month (UTC), which `posts_this_month`
 * reads as one row instead of counting the month's posts. Triggers on `posts` keep it in the
 * statement that changes the posts, whichever statement that is (the shared insert of several
 * posts, a delete, the cascade of a project's deletion), so it is exact at every commit. Inserts
 * and deletes are counted once per statement, through its transition table; the rare update that
 * moves a post to another user, kind or month, row by row. Counter rows are taken in (user, month)
 * order, so two statements touching the same users cannot deadlock on them.
 */
export class UserPostMonths1795430000001 implements MigrationInterface {
  name = 'UserPostMonths1795430000001';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            CREATE TABLE "user_post_months" (
                "user_id" integer NOT NULL,
                "month" date NOT NULL,
                "posts" integer NOT NULL DEFAULT '0',
                CONSTRAINT "PK_9f24237bd06bbe62cc4c02c8336" PRIMARY KEY ("user_id", "month")
            )
        `);
    await queryRunner.query(`
            ALTER TABLE "user_post_months"
            ADD CONSTRAINT "FK_9c3298c616a10cd8c1f0069a43a" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
    await queryRunner.query(`
            CREATE FUNCTION "user_post_months_inserted"() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
              INSERT INTO user_post_months AS m (user_id, month, posts)
              SELECT p.created_by_user_id, ${MONTH_OF('p')}, count(*)
                FROM inserted p
               WHERE NOT p.test AND p.created_by_user_id IS NOT NULL
               GROUP BY 1, 2 ORDER BY 1, 2
              ON CONFLICT (user_id, month) DO UPDATE SET posts = m.posts + excluded.posts;
              RETURN NULL;
            END $$
        `);
    // Decrements update rows that exist: a user deleted with their posts has no row left.
    await queryRunner.query(`
            CREATE FUNCTION "user_post_months_deleted"() RETURNS trigger LANGUAGE plpgsql AS $$
            DECLARE d record;
            BEGIN
              FOR d IN SELECT p.created_by_user_id AS user_id, ${MONTH_OF('p')} AS month, count(*) AS posts
                         FROM deleted p
                        WHERE NOT p.test AND p.created_by_user_id IS NOT NULL
                        GROUP BY 1, 2 ORDER BY 1, 2
              LOOP
                UPDATE user_post_months SET posts = posts - d.posts
                 WHERE user_id = d.user_id AND month = d.month;
              END LOOP;
              RETURN NULL;
            END $$
        `);
    await queryRunner.query(`
            CREATE FUNCTION "user_post_months_moved"() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
              IF NOT OLD.test AND OLD.created_by_user_id IS NOT NULL THEN
                UPDATE user_post_months SET posts = posts - 1
                 WHERE user_id = OLD.created_by_user_id AND month = ${MONTH_OF('OLD')};
              END IF;
              IF NOT NEW.test AND NEW.created_by_user_id IS NOT NULL THEN
                INSERT INTO user_post_months AS m (user_id, month, posts)
                VALUES (NEW.created_by_user_id, ${MONTH_OF('NEW')}, 1)
                ON CONFLICT (user_id, month) DO UPDATE SET posts = m.posts + 1;
              END IF;
              RETURN NULL;
            END $$
        `);
    // No post is written between the triggers' start and the count below.
    await queryRunner.query(`LOCK TABLE "posts" IN SHARE ROW EXCLUSIVE MODE`);
    await queryRunner.query(`
            CREATE TRIGGER "user_post_months_inserted" AFTER INSERT ON "posts"
            REFERENCING NEW TABLE AS inserted
            FOR EACH STATEMENT EXECUTE FUNCTION "user_post_months_inserted"()
        `);
    await queryRunner.query(`
            CREATE TRIGGER "user_post_months_deleted" AFTER DELETE ON "posts"
            REFERENCING OLD TABLE AS deleted
            FOR EACH STATEMENT EXECUTE FUNCTION "user_post_months_deleted"()
        `);
    // Only an update that changes what a post counts toward runs the function at all.
    await queryRunner.query(`
            CREATE TRIGGER "user_post_months_moved" AFTER UPDATE OF "created_by_user_id", "test", "created_at" ON "posts"
            FOR EACH ROW
            WHEN (OLD.created_by_user_id IS DISTINCT FROM NEW.created_by_user_id
                  OR OLD.test IS DISTINCT FROM NEW.test
                  OR ${MONTH_OF('OLD')} IS DISTINCT FROM ${MONTH_OF('NEW')})
            EXECUTE FUNCTION "user_post_months_moved"()
        `);
    await queryRunner.query(`
            INSERT INTO "user_post_months" (user_id, month, posts)
            SELECT p.created_by_user_id, ${MONTH_OF('p')}, count(*)
              FROM posts p
             WHERE NOT p.test AND p.created_by_user_id IS NOT NULL
             GROUP BY 1, 2
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER "user_post_months_moved" ON "posts"`);
    await queryRunner.query(`DROP TRIGGER "user_post_months_deleted" ON "posts"`);
    await queryRunner.query(`DROP TRIGGER "user_post_months_inserted" ON "posts"`);
    await queryRunner.query(`DROP FUNCTION "user_post_months_moved"()`);
    await queryRunner.query(`DROP FUNCTION "user_post_months_deleted"()`);
    await queryRunner.query(`DROP FUNCTION "user_post_months_inserted"()`);
    await queryRunner.query(`
            ALTER TABLE "user_post_months" DROP CONSTRAINT "FK_9c3298c616a10cd8c1f0069a43a"
        `);
    await queryRunner.query(`DROP TABLE "user_post_months"`);
  }
}
