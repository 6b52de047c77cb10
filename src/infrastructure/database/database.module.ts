import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { buildDataSourceOptions } from './data-source';

export const POOL_CONNECT_TIMEOUT_MS = 3_000;
export const QUERY_TIMEOUT_MS = 6_000;

@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => {
        const options = buildDataSourceOptions(config.databaseUrl);
        return {
          ...options,
          // A database away or hung answers 503 within 10 s: 3 s for a connection, 6 s per query.
          extra: {
            ...options.extra,
            connectionTimeoutMillis: POOL_CONNECT_TIMEOUT_MS,
            query_timeout: QUERY_TIMEOUT_MS,
            keepAlive: true,
            max: config.databasePool.size,
            // pg's 10 s default: load waits on new backends (docs/performance.md#database-pool).
            idleTimeoutMillis: config.databasePool.idleMs,
            application_name: `herald-${config.appRole}`,
          },
          retryAttempts: 3,
        };
      },
    }),
  ],
})
export class DatabaseModule {}
