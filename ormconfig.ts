import { DataSource } from 'typeorm';
import { loadDatabaseUrl, readEnvironment } from './src/infrastructure/config/config';
import { buildDataSourceOptions } from './src/infrastructure/database/data-source';

/** The data source the TypeORM CLI uses; the app builds its own from the same options. */
export default new DataSource(
  buildDataSourceOptions(loadDatabaseUrl(readEnvironment()), `${__dirname}/migrations/*.{ts,js}`),
);
