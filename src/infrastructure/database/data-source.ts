import { types } from 'pg';
import { DataSourceOptions } from 'typeorm';
import { SnakeNamingStrategy } from 'typeorm-naming-strategies';
import { ENTITIES } from './entities';

const TIMESTAMPTZ_OID = 1184;
const TIMESTAMP_OID = 1114;

/** Timestamps stay the database's text (docs/api-rules.md#date-times). */
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
    // One transaction per migration, so one building an index CONCURRENTLY may opt out.
    migrationsTransactionMode: 'each',
    namingStrategy: new SnakeNamingStrategy(),
    synchronize: false,
    logging: false,
    extra: {
      // Every session speaks UTC: timestamptz text carries a +00 offset that formatTimestamp drops.
      options: '-c TimeZone=UTC',
      types: { getTypeParser },
    },
  };
}
