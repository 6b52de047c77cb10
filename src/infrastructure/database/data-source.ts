import { types } from 'pg';
import { DataSourceOptions } from 'typeorm';
import { SnakeNamingStrategy } from 'typeorm-naming-strategies';
import { ENTITIES } from './entities';

const TIMESTAMPTZ_OID = 1184;
const TIMESTAMP_OID = 1114;

/**
 * Timestamps stay the database's text (real microseconds, never a JS Date:
 * docs/api-rules.md#date-times).
 */
function getTypeParser(oid: number, format?: 'text' | 'binary') {
  if (oid === TIMESTAMPTZ_OID || oid === TIMESTAMP_OID) return (value: string) => value;
  return types.getTypeParser(oid, format);
}

/** One definition for the app, the TypeORM CLI (ormconfig.ts) and the tests. */
export function buildDataSourceOptions(
  databaseUrl: string,
  migrationsGlob?: string,
): DataSourceOptions {
  return {
    type: 'postgres',
    url: databaseUrl,
    entities: ENTITIES,
    migrations: migrationsGlob ? [migrationsGlob] : [],
    migrationsTableName: 'migrations',
    // Each migration in a transaction of its own, so that one building an index CONCURRENTLY on a
    // big table (which cannot run in a transaction) may opt out, wherever migrations are run from.
    migrationsTransactionMode: 'each',
    namingStrategy: new SnakeNamingStrategy(),
    synchronize: false,
    logging: false,
    extra: {
      // Every session speaks UTC, so timestamptz text carries a +00 offset that formatTimestamp
      // drops.
      options: '-c TimeZone=UTC',
      types: { getTypeParser },
    },
  };
}
