import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

export const ADMIN_DATABASE_URL =
  process.env.TEST_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const TEST_DATABASE_PREFIX = 'herald_test_';

export function databaseUrl(name: string): string {
  const url = new URL(ADMIN_DATABASE_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

async function withAdmin<T>(work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: ADMIN_DATABASE_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A fresh, empty database of the test's own. */
export async function createTestDatabase(): Promise<string> {
  const name = `${TEST_DATABASE_PREFIX}${process.pid}_${randomBytes(4).toString('hex')}`;
  await withAdmin((client) => client.query(`CREATE DATABASE "${name}"`));
  return name;
}

export async function dropTestDatabase(name: string): Promise<void> {
  await withAdmin((client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
}

/** Leftovers of interrupted runs: databases whose test process (named in the database) is gone. */
export async function dropAbandonedTestDatabases(): Promise<void> {
  await withAdmin(async (client) => {
    const { rows } = await client.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE datname LIKE $1`,
      [`${TEST_DATABASE_PREFIX}%`],
    );
    for (const row of rows) {
      const pid = Number(row.datname.slice(TEST_DATABASE_PREFIX.length).split('_')[0]);
      if (isAlive(pid)) continue;
      await client.query(`DROP DATABASE IF EXISTS "${row.datname}" WITH (FORCE)`);
    }
  });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
