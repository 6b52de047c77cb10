import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig, readEnvironment } from './config';

const base = {
  DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/herald',
  APP_SECRET: 'z'.repeat(32),
};

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
}

describe('loadConfig: every variable validated at start', () => {
  it('applies the documented defaults', () => {
    const config = loadConfig(base);
    expect(config).toMatchObject({
      port: 3000,
      databasePool: { size: 20, idleMs: 300_000 },
      redisUrl: 'redis://127.0.0.1:6379',
      appRole: 'all',
      logLevel: 'info',
      outboundAllowCidrs: [],
      mediaFetchTimeoutMs: 30_000,
      aiApiBaseUrl: null,
      aiApiKey: null,
      rateLimits: { windowMs: 60_000, upload: 10, createPost: 10, publish: 10, other: 30 },
      webhooks: {
        // The webhook retry schedule: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h; 10 s per answer.
        retryDelaysMs: [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000],
        disableAfterEvents: 20,
        timeoutMs: 10_000,
      },
    });
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.webhooks.retryDelaysMs)).toBe(true);
  });

  it('reads the outbound allow-list as OUTBOUND_ALLOW_CIDRS, else under its earlier name', () => {
    const both = { OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8', MEDIA_FETCH_ALLOW_CIDRS: '10.1.0.0/16' };
    expect(loadConfig({ ...base, ...both }).outboundAllowCidrs).toEqual(['127.0.0.0/8']);
    expect(
      loadConfig({ ...base, MEDIA_FETCH_ALLOW_CIDRS: '10.1.0.0/16' }).outboundAllowCidrs,
    ).toEqual(['10.1.0.0/16']);
    expect(loadConfig(base).outboundAllowCidrs).toEqual([]);
  });

  it('reads every variable it is given', () => {
    const config = loadConfig({
      ...base,
      PORT: '8080',
      REDIS_URL: 'redis://cache:6380',
      PUBLIC_BASE_URL: 'https://herald.example.com/',
      MEDIA_STORAGE_DIR: '/data/media',
      MEDIA_FETCH_ALLOW_CIDRS: '127.0.0.2/32, 10.1.0.0/16',
      AI_API_BASE_URL: 'http://127.0.0.1:8082/v1',
      AI_API_KEY: 'sk-test',
      APP_ROLE: 'worker',
      LOG_LEVEL: 'debug',
      TRUST_PROXY: '10.0.0.0/8, loopback',
      WEBHOOK_RETRY_DELAYS_MS: '100, 0,2500',
      WEBHOOK_DISABLE_AFTER_EVENTS: '3',
      DATABASE_POOL_SIZE: '5',
      DATABASE_POOL_IDLE_MS: '0',
    });
    expect(config.webhooks).toMatchObject({ retryDelaysMs: [100, 0, 2500], disableAfterEvents: 3 });
    expect(config).toMatchObject({
      port: 8080,
      publicBaseUrl: 'https://herald.example.com',
      outboundAllowCidrs: ['127.0.0.2/32', '10.1.0.0/16'],
      aiApiBaseUrl: 'http://127.0.0.1:8082/v1',
      appRole: 'worker',
      trustProxy: '10.0.0.0/8, loopback',
      databasePool: { size: 5, idleMs: 0 },
    });
  });

  it('reads the sign-in, application API and password settings, with their defaults', () => {
    expect(loadConfig(base)).toMatchObject({
      passwordHashLog2N: 17,
      rateLimits: {
        signInWindowMs: 900_000,
        signInFailuresPerAccount: 10,
        signInFailuresPerAddress: 30,
        registrationsPerAddressPerHour: 10,
        appRequestsPerMinute: 300,
        aiGenerationsPerHour: 30,
      },
    });
    const config = loadConfig({
      ...base,
      PASSWORD_HASH_LOG2_N: '14',
      SIGNIN_WINDOW_MS: '2000',
      SIGNIN_FAILURES_PER_ACCOUNT: '3',
      SIGNIN_FAILURES_PER_ADDRESS: '5',
      REGISTRATIONS_PER_ADDRESS_PER_HOUR: '2',
      APP_RATE_LIMIT_PER_MINUTE: '7',
      AI_GENERATIONS_PER_HOUR: '1',
    });
    expect(config).toMatchObject({
      passwordHashLog2N: 14,
      rateLimits: {
        signInWindowMs: 2000,
        signInFailuresPerAccount: 3,
        signInFailuresPerAddress: 5,
        registrationsPerAddressPerHour: 2,
        appRequestsPerMinute: 7,
        aiGenerationsPerHour: 1,
      },
    });
  });

  it.each([
    [{ DATABASE_URL: '' }, 'DATABASE_URL is required'],
    [{ PASSWORD_HASH_LOG2_N: '12' }, 'PASSWORD_HASH_LOG2_N must be a whole number from 14 to 20'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL must be a URL'],
    [{ APP_SECRET: 'short' }, 'APP_SECRET must be at least 32 characters long'],
    [{ PORT: 'eighty' }, 'PORT must be a whole number'],
    [{ PORT: '70000' }, 'PORT must be a whole number'],
    [{ DATABASE_POOL_SIZE: '0' }, 'DATABASE_POOL_SIZE must be a whole number from 1 to 1000'],
    [{ DATABASE_POOL_IDLE_MS: '-1' }, 'DATABASE_POOL_IDLE_MS must be a whole number from 0'],
    [{ APP_ROLE: 'both' }, 'APP_ROLE must be one of: all, api, worker'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL must be one of'],
    [{ REDIS_URL: 'http://redis' }, 'REDIS_URL must be a URL'],
    [
      { MEDIA_FETCH_ALLOW_CIDRS: '127.0.0.2' },
      'MEDIA_FETCH_ALLOW_CIDRS must be a comma-separated list',
    ],
    [
      { MEDIA_FETCH_ALLOW_CIDRS: '300.0.0.1/8' },
      'MEDIA_FETCH_ALLOW_CIDRS must be a comma-separated list',
    ],
    [{ AI_API_BASE_URL: 'not a url' }, 'AI_API_BASE_URL must be a URL'],
    [{ TRUST_PROXY: 'everyone; rm -rf' }, 'TRUST_PROXY must match'],
    [{ MEDIA_STORAGE_DRIVER: 'ftp' }, 'MEDIA_STORAGE_DRIVER must be one of: local, s3'],
    [{ MEDIA_STORAGE_DRIVER: 's3' }, 'S3_BUCKET is required when MEDIA_STORAGE_DRIVER is s3'],
    [{ MEDIA_STORAGE_DRIVER: 's3', S3_BUCKET: 'Bad_Bucket' }, 'S3_BUCKET must match'],
    [
      { MEDIA_STORAGE_DRIVER: 's3', S3_BUCKET: 'media', S3_ACCESS_KEY_ID: 'AKIA' },
      'S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY must be set together',
    ],
    [
      { MEDIA_STORAGE_DRIVER: 's3', S3_BUCKET: 'media', S3_ENDPOINT: 'minio:9000' },
      'S3_ENDPOINT must be a URL',
    ],
    [{ METRICS_TOKEN: 'short' }, 'METRICS_TOKEN must be at least 16 characters long'],
    [{ METRICS_PORT: '70000' }, 'METRICS_PORT must be a whole number from 0 to 65535'],
    [
      { SHUTDOWN_TIMEOUT_MS: '0' },
      'SHUTDOWN_TIMEOUT_MS must be a whole number from 100 to 3600000',
    ],
    [{ WEBHOOK_RETRY_DELAYS_MS: '5s,10s' }, 'WEBHOOK_RETRY_DELAYS_MS must be a comma-separated'],
    [{ WEBHOOK_RETRY_DELAYS_MS: '100,,200' }, 'WEBHOOK_RETRY_DELAYS_MS must be a comma-separated'],
    [{ WEBHOOK_RETRY_DELAYS_MS: '-5' }, 'WEBHOOK_RETRY_DELAYS_MS must be a comma-separated'],
    [{ WEBHOOK_RETRY_DELAYS_MS: '86400001' }, 'WEBHOOK_RETRY_DELAYS_MS must be a comma-separated'],
    [{ WEBHOOK_DISABLE_AFTER_EVENTS: '0' }, 'WEBHOOK_DISABLE_AFTER_EVENTS must be a whole number'],
  ])('refuses %p with one clear line', (override, message) => {
    const found = problems({ ...base, ...override });
    expect(found).toHaveLength(1);
    expect(found[0]).toContain(message);
  });

  it('reads the operations variables: metrics, stopping and an S3 bucket', () => {
    const config = loadConfig({
      ...base,
      METRICS_TOKEN: 'metrics-token-0123456789',
      METRICS_PORT: '9100',
      SHUTDOWN_TIMEOUT_MS: '25000',
      MEDIA_STORAGE_DRIVER: 's3',
      S3_BUCKET: 'herald-media',
      S3_REGION: 'eu-central-1',
      S3_ENDPOINT: 'http://minio:9000/',
      S3_ACCESS_KEY_ID: 'access',
      S3_SECRET_ACCESS_KEY: 'secret-key',
      S3_FORCE_PATH_STYLE: 'true',
      QUEUE_HISTORY_JOBS: '50',
      QUEUE_HISTORY_HOURS: '2',
    });
    expect(config.ops).toEqual({
      metricsToken: 'metrics-token-0123456789',
      metricsPort: 9100,
      httpMetrics: true,
      shutdownTimeoutMs: 25_000,
      queueHistory: { jobs: 50, ageSeconds: 7_200 },
    });
    expect(config.mediaStorageDriver).toBe('s3');
    expect(config.s3).toEqual({
      bucket: 'herald-media',
      region: 'eu-central-1',
      endpoint: 'http://minio:9000',
      accessKeyId: 'access',
      secretAccessKey: 'secret-key',
      forcePathStyle: true,
    });
    expect(loadConfig(base)).toMatchObject({
      mediaStorageDriver: 'local',
      s3: null,
      ops: { metricsToken: null, metricsPort: 9464, httpMetrics: true, shutdownTimeoutMs: 10_000 },
    });
  });

  it('lists every problem at once and never echoes a value', () => {
    const secret = 'tiny-secret';
    const error = (() => {
      try {
        loadConfig({ APP_SECRET: secret, PORT: 'z' });
      } catch (e) {
        return e as ConfigError;
      }
      throw new Error('expected a ConfigError');
    })();
    expect(error.problems).toHaveLength(3);
    expect(error.message).not.toContain(secret);
  });
});

describe('readEnvironment', () => {
  const FROM_FILE = 'HERALD_SPEC_FROM_FILE';
  const SET_EMPTY = 'HERALD_SPEC_SET_EMPTY';
  const SET_BEFORE = 'HERALD_SPEC_SET_BEFORE';
  let directory: string;

  beforeEach(() => (directory = mkdtempSync(join(tmpdir(), 'herald-env-'))));
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  // In its own process: Jest gives each test file a copy of process.env, which loadEnvFile never sees.
  it('completes the process environment from the file; a variable already set, even empty, wins', () => {
    const file = join(directory, '.env');
    writeFileSync(file, `${FROM_FILE}=file\n${SET_EMPTY}=file\n${SET_BEFORE}=file\n`);
    const script = `
      const env = require(${JSON.stringify(__dirname + '/config')}).readEnvironment(${JSON.stringify(file)});
      process.stdout.write(JSON.stringify([env.${FROM_FILE}, env.${SET_EMPTY}, env.${SET_BEFORE}]));`;
    const output = execFileSync(
      process.execPath,
      ['-r', require.resolve('ts-node/register/transpile-only'), '-e', script],
      {
        env: { PATH: process.env.PATH, [SET_EMPTY]: '', [SET_BEFORE]: 'process' },
        encoding: 'utf8',
      },
    );
    expect(JSON.parse(output)).toEqual(['file', '', 'process']);
  });

  it('is the process environment as it is when there is no file', () => {
    const env = readEnvironment(join(directory, 'missing.env'));
    expect(env).toBe(process.env);
    expect(env[FROM_FILE]).toBeUndefined();
  });

  it('names the file, as a configuration error, when it cannot be read', () => {
    expect(() => readEnvironment(directory)).toThrow(ConfigError);
    expect(() => readEnvironment(directory)).toThrow(`${directory} could not be read`);
  });
});
