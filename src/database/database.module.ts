import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { buildDataSourceOptions } from './data-source';

@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({
        ...buildDataSourceOptions(config.databaseUrl),
        retryAttempts: 3,
      }),
    }),
  ],
})
export class DatabaseModule {}
