import { existsSync } from 'node:fs';
import {
  type AppRole,
  EnvironmentVariables,
  type LogLevel,
  type MediaStorageDriverName,
} from './environment';
import { PLATFORM_DESCRIPTORS } from '../../domains/platforms/platforms';
import { type Env, readVariables } from './variable-rules';

export {
  APP_ROLES,
  type AppRole,
  DEFAULT_WEBHOOK_RETRY_DELAYS_MS,
  type LogLevel,
  MEDIA_STORAGE_DRIVERS,
  type MediaStorageDriverName,
  PUBLICATION_CONCURRENCY_DEFAULT,
} from './environment';

export interface RateLimitConfig {
  /** Length of one fixed window, in milliseconds (60 s in production). */
  windowMs: number;
  upload: number;
  createPost: number;
  publish: number;
  other: number;
  /** Failed authentications allowed per client IP and window. */
  authFailuresPerIp: number;
  /** Password sign-in: the window failures are counted in (15 minutes in production). */
  signInWindowMs: number;
  /** Failed sign-ins allowed per account, and per client address, in one window. */
  signInFailuresPerAccount: number;
  signInFailuresPerAddress: number;
  /** Registrations allowed per client address in an hour. */
  registrationsPerAddressPerHour: number;
  /** Application API requests allowed per user and minute. */
  appRequestsPerMinute: number;
  /** AI generations allowed per user and hour. */
  aiGenerationsPerHour: number;
  /** `RATE_LIMIT_ENABLED=false` turns every request limit off; for benchmarks only. */
  enabled: boolean;
}

/** The publication pipeline: queue worker, retries, recovery sweep, the wait for one send. */
export interface PublicationConfig {
  /** Jobs one worker process holds at once (sized for I/O: see PUBLICATION_CONCURRENCY_DEFAULT). */
  concurrency: number;
  /**
   * Bound on each queue and pacing call to Redis (adding a job, a worker's pacing check, closing a
   * queue at stop; the webhook queue's too), which otherwise hangs while Redis is away.
   */
  queueCallTimeoutMs: number;
  /**
   * Bull's job lock, and how often a worker looks for jobs whose worker died (their lock ran out):
   * a job of a killed worker is taken again within about twice this.
   */
  lockMs: number;
  /** How often the recovery sweep looks for posts without a live job. */
  sweepIntervalMs: number;
  /** Transient failures of one target before it fails for good. */
  maxTries: number;
  /** First retry delay; doubles with every further failure. */
  retryBaseMs: number;
  /** Wait for one send, on every platform, before its outcome counts as unknown. */
  sendTimeoutMs: number;
}

/** An S3-compatible bucket for media; present only when MEDIA_STORAGE_DRIVER is `s3`. */
export interface S3Config {
  bucket: string;
  region: string;
  /** Endpoint of an S3-compatible store (MinIO, R2…); null for AWS itself. */
  endpoint: string | null;
  accessKeyId: string | null;
  secretAccessKey: string | null;
  /** `https://endpoint/bucket/key` instead of `https://bucket.endpoint/key`. */
  forcePathStyle: boolean;
}

/** Operations (docs/api-rules.md#operations): metrics, the queue dashboard, stopping. */
export interface OpsConfig {
  /** Bearer token of GET /metrics; null turns the route off (404). */
  metricsToken: string | null;
  /** Port of a worker's metrics listener (a worker serves no other HTTP); 0 picks a free one. */
  metricsPort: number;
  /** `METRICS_HTTP_ENABLED=false` stops timing requests; for the metrics cost benchmark only. */
  httpMetrics: boolean;
  /**
   * How long stopping (SIGTERM, SIGINT) waits for the requests and jobs in hand before the process
   * exits anyway.
   */
  shutdownTimeoutMs: number;
  /**
   * Finished and failed jobs each queue keeps for the queue dashboard, so an operator sees what
   * happened and why: at most this many of each, none older than this.
   */
  queueHistory: { jobs: number; ageSeconds: number };
}

/** Webhook delivery (docs/api-rules.md#webhooks). */
export interface WebhookConfig {
  /** Delay before each retry of a failed delivery; one more attempt than entries. */
  retryDelaysMs: readonly number[];
  /** An endpoint is disabled after this many events in a row failed every attempt. */
  disableAfterEvents: number;
  /** Wait for one receiver's answer (10 s by default). */
  timeoutMs: number;
  /** Deliveries one worker process runs at once. */
  concurrency: number;
  /**
   * Deliveries to one endpoint a worker process runs at once: an endpoint that hangs holds no more
   * than this, and the others' deliveries go on in the rest.
   */
  endpointConcurrency: number;
  /**
   * A worker's hold on a delivery attempt (its queue job's lock): the attempt of a worker that died
   * is made again by another within about twice this.
   */
  lockMs: number;
  /** How often the sweep enqueues what Redis missed and purges the old delivery log. */
  sweepIntervalMs: number;
}

/** The PostgreSQL connections one process keeps. */
export interface DatabasePoolConfig {
  /** Connections at most. */
  size: number;
  /**
   * How long a connection may stay idle before it closes; 0: never. A new connection is a new
   * PostgreSQL backend (a fork, cold caches, statements prepared again): closing idle ones
   * quickly makes a process under uneven load reconnect over and over, and every reconnection
   * delays the requests queued behind it.
   */
  idleMs: number;
}

export interface AppConfig {
  port: number;
  databaseUrl: string;
  databasePool: DatabasePoolConfig;
  redisUrl: string;
  /** Prefix of every Redis key Herald writes (queues, rate limits), so instances of one deployment share them. */
  redisKeyPrefix: string;
  publicBaseUrl: string;
  mediaStorageDriver: MediaStorageDriverName;
  mediaStorageDir: string;
  /** Set when `mediaStorageDriver` is `s3`. */
  s3: S3Config | null;
  /**
   * Private ranges that requests to user-given URLs (media by link, webhook receivers) may reach
   * anyway: development and tests only.
   */
  outboundAllowCidrs: readonly string[];
  mediaFetchTimeoutMs: number;
  /**
   * Each platform's own settings, by its name, as its descriptor read them (every platform folder
   * has a function that answers its own, typed).
   */
  platforms: Readonly<Record<string, unknown>>;
  aiApiBaseUrl: string | null;
  aiApiKey: string | null;
  /** Chat-completions model for post and template text. */
  aiTextModel: string;
  /** Images model; asked for `b64_json`. */
  aiImageModel: string;
  /** Wait for one AI provider call, in milliseconds. */
  aiTimeoutMs: number;
  appSecret: string;
  appRole: AppRole;
  logLevel: LogLevel;
  /** Express `trust proxy`: which hops' X-Forwarded-For to believe for the client address. */
  trustProxy: string;
  /** scrypt's cost for new password hashes, as log2(N); older hashes are upgraded at sign-in. */
  passwordHashLog2N: number;
  /**
   * How long a process may authenticate a key from memory; revocations reach every process at
   * once through Redis, so this bounds only one whose announcement was lost. 0: every request
   * reads the database.
   */
  apiKeyCacheMs: number;
  rateLimits: RateLimitConfig;
  publication: PublicationConfig;
  ops: OpsConfig;
  webhooks: WebhookConfig;
  /** Lines for the log at start: variables read under an earlier name. */
  notices: readonly string[];
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

/** Where the local defaults live (the quick start writes them): `.env` in the working directory. */
export const ENV_FILE = '.env';

/**
 * The environment the service, the CLI and the TypeORM CLI are configured from: the process's
 * own variables, completed by the `.env` file when there is one (Node's process.loadEnvFile: a
 * variable already set, even empty, wins over the file). Tests pass their variables to
 * loadConfig directly and never read a file.
 */
export function readEnvironment(file = ENV_FILE): Env {
  if (existsSync(file)) {
    try {
      process.loadEnvFile(file);
    } catch (error) {
      throw new ConfigError([`${file} could not be read: ${(error as Error).message}`]);
    }
  }
  return process.env;
}

/** Reads and validates the environment once; errors name the variable, never its value. */
export function loadConfig(env: Env): AppConfig {
  const { env: named, notices, renamed } = withEarlierNames(env);
  const { variables: v, problems } = readVariables(EnvironmentVariables, named);
  const found: string[] = Object.entries(problems).map(([name, problem]) =>
    renamed.has(name) ? problem.replace(name, renamed.get(name) as string) : problem,
  );
  const platforms: Record<string, unknown> = {};
  for (const { name, settings } of PLATFORM_DESCRIPTORS) {
    if (!settings) continue;
    const own = readVariables(settings.schema, env);
    found.push(...Object.values<string>(own.problems));
    platforms[name] = settings.read(own.variables);
  }
  if (found.length > 0) throw new ConfigError(found);
  return deepFreeze({
    port: v.PORT,
    databaseUrl: v.DATABASE_URL,
    databasePool: { size: v.DATABASE_POOL_SIZE, idleMs: v.DATABASE_POOL_IDLE_MS },
    redisUrl: v.REDIS_URL,
    redisKeyPrefix: v.REDIS_KEY_PREFIX,
    publicBaseUrl: withoutTrailingSlash(v.PUBLIC_BASE_URL),
    mediaStorageDriver: v.MEDIA_STORAGE_DRIVER,
    mediaStorageDir: v.MEDIA_STORAGE_DIR,
    s3: s3Config(v),
    outboundAllowCidrs: v.OUTBOUND_ALLOW_CIDRS ?? v.MEDIA_FETCH_ALLOW_CIDRS ?? [],
    mediaFetchTimeoutMs: v.MEDIA_FETCH_TIMEOUT_MS,
    platforms,
    aiApiBaseUrl: v.AI_API_BASE_URL === undefined ? null : withoutTrailingSlash(v.AI_API_BASE_URL),
    aiApiKey: v.AI_API_KEY ?? null,
    aiTextModel: v.AI_TEXT_MODEL,
    aiImageModel: v.AI_IMAGE_MODEL,
    aiTimeoutMs: v.AI_TIMEOUT_MS,
    appSecret: v.APP_SECRET,
    appRole: v.APP_ROLE,
    logLevel: v.LOG_LEVEL,
    trustProxy: v.TRUST_PROXY,
    passwordHashLog2N: v.PASSWORD_HASH_LOG2_N,
    apiKeyCacheMs: v.API_KEY_CACHE_MS,
    rateLimits: {
      windowMs: v.RATE_LIMIT_WINDOW_MS,
      upload: v.RATE_LIMIT_UPLOAD,
      createPost: v.RATE_LIMIT_CREATE_POST,
      publish: v.RATE_LIMIT_PUBLISH,
      other: v.RATE_LIMIT_OTHER,
      authFailuresPerIp: v.RATE_LIMIT_AUTH_FAILURES,
      signInWindowMs: v.SIGNIN_WINDOW_MS,
      signInFailuresPerAccount: v.SIGNIN_FAILURES_PER_ACCOUNT,
      signInFailuresPerAddress: v.SIGNIN_FAILURES_PER_ADDRESS,
      registrationsPerAddressPerHour: v.REGISTRATIONS_PER_ADDRESS_PER_HOUR,
      appRequestsPerMinute: v.APP_RATE_LIMIT_PER_MINUTE,
      aiGenerationsPerHour: v.AI_GENERATIONS_PER_HOUR,
      enabled: v.RATE_LIMIT_ENABLED,
    },
    publication: {
      concurrency: v.PUBLICATION_CONCURRENCY,
      queueCallTimeoutMs: v.PUBLICATION_ENQUEUE_TIMEOUT_MS,
      sweepIntervalMs: v.PUBLICATION_SWEEP_INTERVAL_MS,
      lockMs: v.PUBLICATION_LOCK_MS,
      maxTries: v.PUBLICATION_MAX_TRIES,
      retryBaseMs: v.PUBLICATION_RETRY_BASE_MS,
      sendTimeoutMs: v.PUBLICATION_SEND_TIMEOUT_MS,
    },
    ops: {
      metricsToken: v.METRICS_TOKEN ?? null,
      metricsPort: v.METRICS_PORT,
      httpMetrics: v.METRICS_HTTP_ENABLED,
      shutdownTimeoutMs: v.SHUTDOWN_TIMEOUT_MS,
      queueHistory: { jobs: v.QUEUE_HISTORY_JOBS, ageSeconds: v.QUEUE_HISTORY_HOURS * 3_600 },
    },
    webhooks: {
      retryDelaysMs: [...v.WEBHOOK_RETRY_DELAYS_MS],
      disableAfterEvents: v.WEBHOOK_DISABLE_AFTER_EVENTS,
      timeoutMs: v.WEBHOOK_TIMEOUT_MS,
      concurrency: v.WEBHOOK_CONCURRENCY,
      endpointConcurrency: v.WEBHOOK_ENDPOINT_CONCURRENCY,
      lockMs: v.WEBHOOK_LOCK_MS,
      sweepIntervalMs: v.WEBHOOK_SWEEP_INTERVAL_MS,
    },
    notices,
  });
}

/**
 * The environment with Herald's variables that a platform used to name read under their earlier
 * names where they are unset; a problem with such a value names the variable that was set.
 */
function withEarlierNames(env: Env): {
  env: Env;
  notices: string[];
  renamed: Map<string, string>;
} {
  const named: Env = { ...env };
  const notices: string[] = [];
  const renamed = new Map<string, string>();
  for (const { settings } of PLATFORM_DESCRIPTORS) {
    for (const [name, earlier] of Object.entries(settings?.earlierNames ?? {})) {
      if (named[name]?.trim() || !env[earlier]?.trim()) continue;
      named[name] = env[earlier];
      renamed.set(name, earlier);
      notices.push(`${earlier} is deprecated: set ${name} instead`);
    }
  }
  return { env: named, notices, renamed };
}

/** Only the database address, for the TypeORM CLI, which needs nothing else. */
export function loadDatabaseUrl(env: Env): string {
  const { variables, problems } = readVariables(EnvironmentVariables, env);
  if (problems.DATABASE_URL) throw new ConfigError([problems.DATABASE_URL]);
  return variables.DATABASE_URL;
}

function s3Config(v: EnvironmentVariables): S3Config | null {
  // The schema requires the bucket with the S3 driver.
  if (v.MEDIA_STORAGE_DRIVER !== 's3' || v.S3_BUCKET === undefined) return null;
  return {
    bucket: v.S3_BUCKET,
    region: v.S3_REGION,
    endpoint: v.S3_ENDPOINT === undefined ? null : withoutTrailingSlash(v.S3_ENDPOINT),
    accessKeyId: v.S3_ACCESS_KEY_ID ?? null,
    secretAccessKey: v.S3_SECRET_ACCESS_KEY ?? null,
    forcePathStyle: v.S3_FORCE_PATH_STYLE,
  };
}

function withoutTrailingSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

function deepFreeze<T extends object>(value: T): T {
  for (const inner of Object.values(value)) {
    if (typeof inner === 'object' && inner !== null) deepFreeze(inner);
  }
  return Object.freeze(value);
}
