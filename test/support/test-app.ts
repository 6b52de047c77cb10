import { NestExpressApplication } from '@nestjs/platform-express';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import request from 'supertest';
import { DataSource } from 'typeorm';
import TestAgent from 'supertest/lib/agent';
import { Test } from '@nestjs/testing';
import { AppModule } from '../../src/app.module';
import { configureApp, createHttpApp } from '../../src/app.setup';
import { AppConfig, loadConfig } from '../../src/infrastructure/config/config';
import { buildDataSourceOptions } from '../../src/infrastructure/database/data-source';
import { OpenApiContract, recordMismatch } from './contract';
import { createTestDatabase, databaseUrl, dropTestDatabase } from './databases';
import { localStore, MediaDriver, MediaStore, s3Store } from './media-store';
import { deleteRedisKeys } from './redis-keys';
import { S3TestServer } from './s3-server';

export const TEST_APP_SECRET = 'test-secret-that-is-long-enough-0123456789';
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
export const MIGRATIONS_GLOB = join(__dirname, '..', '..', 'migrations', '*.ts');

/** A database of the test's own, created and migrated. */
export async function createMigratedDatabase(): Promise<{ name: string; url: string }> {
  const name = await createTestDatabase();
  const url = databaseUrl(name);
  const source = new DataSource(buildDataSourceOptions(url, MIGRATIONS_GLOB));
  await source.initialize();
  try {
    await source.runMigrations({ transaction: 'each' });
  } finally {
    await source.destroy();
  }
  return { name, url };
}

export interface TestApp {
  app: NestExpressApplication;
  http: TestAgent;
  config: AppConfig;
  /** A plain connection to the test's database, for asserting on rows. */
  db: Client;
  databaseName: string;
  mediaDir: string;
  /** Where the media files are, whichever the driver. */
  media: MediaStore;
  /** The S3 server of an app started with `storage: 's3'`. */
  s3?: S3TestServer;
  close(): Promise<void>;
}

export interface StartTestAppOptions {
  /**
   * Another instance of the same deployment: reuse that app's database, Redis key prefix and media
   * directory (as instances behind one load balancer do). Closing this app leaves them to the first.
   */
  shareWith?: TestApp;
  /** The media storage driver; `s3` starts an S3-protocol server of the app's own. */
  storage?: MediaDriver;
  /**
   * Replaces providers by token, for what only a seam can play: the system's DNS resolver
   * (HOST_RESOLVER) in the tests of DNS rebinding, the registered platforms (REGISTERED_PLATFORMS) in the
   * publication service's spec. Everything else stays as production builds it.
   */
  overrides?: { provide: unknown; useValue: unknown }[];
  /** The app reaches PostgreSQL through this local port (a TcpProxy); the test's own client does not. */
  databasePort?: number;
}

/**
 * Starts the whole AppModule, exactly as production builds it, on a fresh migrated database and a
 * Redis key prefix of its own. `env` takes the same variables as production.
 */
export async function startTestApp(
  env: Record<string, string> = {},
  options: StartTestAppOptions = {},
): Promise<TestApp> {
  const shared = options.shareWith;
  const { name, url } = shared
    ? // The database itself, even when the first app reaches it through a proxy (databasePort).
      { name: shared.databaseName, url: databaseUrl(shared.databaseName) }
    : await createMigratedDatabase();
  const mediaDir = shared?.mediaDir ?? mkdtempSync(join(tmpdir(), 'herald-media-'));
  const s3 =
    shared?.s3 ?? (options.storage === 's3' ? await new S3TestServer().start() : undefined);
  const appDatabaseUrl = new URL(url);
  if (options.databasePort) appDatabaseUrl.host = `127.0.0.1:${options.databasePort}`;
  const config = loadConfig({
    DATABASE_URL: appDatabaseUrl.toString(),
    REDIS_URL: TEST_REDIS_URL,
    REDIS_KEY_PREFIX:
      shared?.config.redisKeyPrefix ?? `herald-test-${randomBytes(6).toString('hex')}`,
    APP_SECRET: TEST_APP_SECRET,
    LOG_LEVEL: 'silent',
    MEDIA_STORAGE_DIR: mediaDir,
    PUBLIC_BASE_URL: 'http://herald.test',
    TELEGRAM_API_BASE_URL: 'http://127.0.0.1:9',
    // Every spec registers its users from one address, and most run many requests as one user:
    // the specs of these limits set them low themselves. Passwords are hashed at the lowest cost
    // the setting allows; the production cost and its upgrade have a spec of their own.
    REGISTRATIONS_PER_ADDRESS_PER_HOUR: '1000000',
    APP_RATE_LIMIT_PER_MINUTE: '1000000',
    PASSWORD_HASH_LOG2_N: '14',
    ...s3?.env(),
    ...env,
  });
  const app = options.overrides?.length
    ? await createOverriddenApp(config, options.overrides)
    : await createHttpApp(config);
  await app.init();
  const db = new Client({ connectionString: url });
  await db.connect();
  return {
    app,
    http: await contractCheckedAgent(app, config),
    config,
    db,
    databaseName: name,
    mediaDir,
    media: s3 ? s3Store(s3) : localStore(mediaDir),
    s3,
    async close() {
      await db.end();
      await app.close();
      if (shared) return;
      await dropTestDatabase(name);
      await deleteRedisKeys(TEST_REDIS_URL, config.redisKeyPrefix);
      rmSync(mediaDir, { recursive: true, force: true });
      await s3?.stop();
    },
  };
}

async function createOverriddenApp(
  config: AppConfig,
  overrides: NonNullable<StartTestAppOptions['overrides']>,
): Promise<NestExpressApplication> {
  let builder = Test.createTestingModule({ imports: [AppModule.forRoot(config)] });
  for (const { provide, useValue } of overrides)
    builder = builder.overrideProvider(provide).useValue(useValue);
  const moduleRef = await builder.compile();
  const app = moduleRef.createNestApplication<NestExpressApplication>({
    bodyParser: false,
    bufferLogs: true,
  });
  configureApp(app, config);
  return app;
}

const AGENT_METHODS = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options'] as const;

/**
 * A supertest agent whose every answer is checked against the app's served OpenAPI document
 * (test/support/contract.ts): an answer off the document fails the test that received it.
 */
async function contractCheckedAgent(
  app: NestExpressApplication,
  config: AppConfig,
): Promise<TestAgent> {
  const agent = request(app.getHttpServer());
  const document = (await agent.get('/api/openapi.json').expect(200)).body;
  const contract = new OpenApiContract(document, { rateLimitsOff: !config.rateLimits.enabled });
  const methods = agent as unknown as Record<string, (url: string) => request.Test>;
  for (const method of AGENT_METHODS) {
    const original = methods[method].bind(agent);
    methods[method] = (url: string) => {
      const test = original(url);
      test.on('response', (res: request.Response) => {
        const problem = contract.check(method, test.url, res);
        if (problem) recordMismatch(problem);
      });
      return test;
    };
  }
  return agent;
}
