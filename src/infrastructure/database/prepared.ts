import { createHash } from 'node:crypto';
import type { Pool, PoolClient, QueryResult } from 'pg';
import { DataSource, EntityManager } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';

/**
 * A named prepared statement. PostgreSQL parses and plans an unnamed statement (what TypeORM's
 * `query()` sends) at every call, and on the hot paths (key lookup, project access, post creation,
 * the worker's state updates) that costs several times more than running it. A named statement is
 * parsed once per connection and, after a few runs, planned once (PostgreSQL's generic plan).
 * Saves PostgreSQL most of a hot statement's cost (docs/performance.md#prepared-statements).
 *
 * The name comes from the text, so two statements never share one.
 */
export class Statement {
  readonly name: string;

  constructor(readonly text: string) {
    this.name = `herald_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`;
  }
}

/**
 * Runs `statement` in the manager's transaction when it is in one, otherwise on the data source's
 * pool (the same pool, type parsers and session settings TypeORM uses).
 */
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

/** The rows `statement` returns. */
export async function rowsOf<T>(
  db: DataSource | EntityManager,
  statement: Statement,
  values: unknown[],
): Promise<T[]> {
  return (await execute<T>(db, statement, values)).rows;
}
