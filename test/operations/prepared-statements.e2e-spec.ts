import { DataSource } from 'typeorm';
import { buildDataSourceOptions } from '../../src/infrastructure/database/data-source';
import { execute, rowsOf, Statement } from '../../src/infrastructure/database/prepared';
import { dropTestDatabase } from '../support/databases';
import { createMigratedDatabase } from '../support/test-app';

/**
 * The hot paths' named prepared statements (src/infrastructure/database/prepared.ts), on a pool of one connection
 * so that the session PostgreSQL prepared them in is the one asked.
 */
describe('Named prepared statements', () => {
  let name: string;
  let source: DataSource;

  beforeAll(async () => {
    let url: string;
    ({ name, url } = await createMigratedDatabase());
    const options = buildDataSourceOptions(url);
    source = new DataSource({ ...options, extra: { ...options.extra, max: 1 } } as typeof options);
    await source.initialize();
  });

  afterAll(async () => {
    await source?.destroy();
    if (name) await dropTestDatabase(name);
  });

  const count = async () =>
    ((await source.query('SELECT count(*)::int AS n FROM migrations')) as { n: number }[])[0].n;

  it('are prepared once per connection under a name taken from their text, and answer like plain queries', async () => {
    const add = new Statement('SELECT $1::int + 1 AS n, now() AS at');
    expect(new Statement('SELECT $1::int + 1 AS n, now() AS at').name).toBe(add.name);
    expect(new Statement('SELECT $1::int + 2 AS n').name).not.toBe(add.name);

    const first = await rowsOf<{ n: number; at: string }>(source, add, [1]);
    const second = await rowsOf<{ n: number; at: string }>(source, add, [41]);
    expect([first[0].n, second[0].n]).toEqual([2, 42]);
    // The pool's type parsers apply: timestamps stay the database's text
    // (docs/api-rules.md#date-times).
    expect(first[0].at).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+\+00$/);

    const prepared = await source.query('SELECT name, statement FROM pg_prepared_statements');
    expect(prepared).toEqual([{ name: add.name, statement: add.text }]);
  });

  it('run inside the transaction of the manager they are given, and roll back with it', async () => {
    const insert = new Statement(
      `INSERT INTO migrations ("timestamp", name) VALUES ($1, $2) RETURNING id`,
    );
    const before = await count();
    await expect(
      source.transaction(async (manager) => {
        const { rowCount } = await execute(manager, insert, [1, 'rolled back']);
        expect(rowCount).toBe(1);
        // Visible in the transaction (the pool's one connection is the transaction's, so a
        // statement sent outside it would wait forever).
        const [{ n }] = (await manager.query('SELECT count(*)::int AS n FROM migrations')) as {
          n: number;
        }[];
        expect(n).toBe(before + 1);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await count()).toBe(before);

    await source.transaction((manager) => execute(manager, insert, [2, 'kept']));
    expect(await count()).toBe(before + 1);
  });
});
