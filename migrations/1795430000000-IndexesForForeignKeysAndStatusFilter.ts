import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Indexes for every foreign key that had none, so that deleting an account, a channel or a user
 * finds its rows instead of reading every tenant's, and one for the post list filtered by status
 * in its date order. Built CONCURRENTLY, outside a transaction, so a big table keeps taking writes
 * meanwhile; an index left INVALID by a build that failed is dropped and built again.
 */
export class IndexesForForeignKeysAndStatusFilter1795430000000 implements MigrationInterface {
  name = 'IndexesForForeignKeysAndStatusFilter1795430000000';
  transaction = false;

  private static readonly INDEXES = [
    ['IDX_87f16d5605f710711ce990dc7e', 'post_targets', '"account_id"'],
    ['IDX_a7b7c7c9f7b64e5cd279373608', 'post_targets', '"channel_id"'],
    ['IDX_9c6b616b5c373c54a0619460eb', 'media_assets', '"uploaded_by_id"'],
    ['IDX_cb90d47cfc7bc89a8a01bd984e', 'post_templates', '"created_by_id"'],
    [
      'IDX_e0c3994e38a88e9fe30becd5bb',
      'posts',
      '"project_id", "test", "status", "created_at", "id"',
    ],
  ] as const;

  public async up(queryRunner: QueryRunner): Promise<void> {
    for (const [
      name,
      table,
      columns,
    ] of IndexesForForeignKeysAndStatusFilter1795430000000.INDEXES) {
      const invalid = (await queryRunner.query(
        `SELECT 1 FROM pg_index WHERE indexrelid = to_regclass($1) AND NOT indisvalid`,
        [`public."${name}"`],
      )) as unknown[];
      if (invalid.length > 0) await queryRunner.query(`DROP INDEX CONCURRENTLY "public"."${name}"`);
      await queryRunner.query(
        `CREATE INDEX CONCURRENTLY IF NOT EXISTS "${name}" ON "${table}" (${columns})`,
      );
    }
  }

  // Plain DROP INDEX: the TypeORM CLI reverts inside a transaction.
  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const [name] of IndexesForForeignKeysAndStatusFilter1795430000000.INDEXES) {
      await queryRunner.query(`DROP INDEX IF EXISTS "public"."${name}"`);
    }
  }
}
