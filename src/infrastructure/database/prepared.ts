import { createHash } from 'node:crypto';
import type { Pool, PoolClient, QueryResult } from 'pg';
import { DataSource, EntityManager } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';

/** Parsed once per connection (docs/performance.md#prepared-statements); named by its text. */
export class Statement {
  readonly name: string;

  constructor(readonly text: string) {
    this.name = `herald_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`;
  }
}

/** In the manager's transaction when it is in one, else on the data source's pool. */
export async function execute<T>(
  db: DataSource | EntityManager,
  statement: Statement,
  values: unknown[],
): Promise<QueryResult & { rows: T[] }> {
  const manager = db instanceof DataSource ? db.manager : db;
  const query = { name: statement.name, text: statement.text, values };
  const runner = manager.queryRunner;
  if (runner?.isTransactionActive) {
    const client = (await runner.connect()) as PoolClient;
    return client.query(query);
  }
  const pool = (manager.connection.driver as PostgresDriver).master as Pool;
  return pool.query(query);
}

export async function rowsOf<T>(
  db: DataSource | EntityManager,
  statement: Statement,
  values: unknown[],
): Promise<T[]> {
  return (await execute<T>(db, statement, values)).rows;
}
