import { IsDefined, IsString, ValidateIf } from 'class-validator';
import { existsSync } from 'node:fs';
import { Omittable } from '../../http/input/omittable';
import {
  AtLeastCharacters,
  CidrList,
  type Env,
  OneOf,
  Pattern,
  problem,
  readVariables,
  SetTogetherWith,
  TrueOrFalse,
  UrlOf,
  WholeNumber,
  WholeNumberList,
} from './variable-rules';

export type AppRole = 'all' | 'api' | 'worker';
export const APP_ROLES: readonly AppRole[] = ['all', 'api', 'worker'];
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export type MediaStorageDriverName = 'local' | 's3';
export const MEDIA_STORAGE_DRIVERS: readonly MediaStorageDriverName[] = ['local', 's3'];

/**
 * A job in hand spends its time waiting: for the platform's answer and for its pacing slot (a
 * timer). It costs memory, not a CPU, so a worker holds enough of them to keep every bot at
 * Telegram's ceiling: 30 messages/s per bot × about a second of answer and wait, for ten busy bots
 * at once, with room (docs/performance.md#worker-concurrency).
 */
export const PUBLICATION_CONCURRENCY_DEFAULT = 400;

/** Webhook retries: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
export const DEFAULT_WEBHOOK_RETRY_DELAYS_MS: readonly number[] = [
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  10 * 3_600_000,
];
const MAX_WEBHOOK_RETRIES = 20;
/** One retry waits at most a day. */
const MAX_WEBHOOK_RETRY_DELAY_MS = 86_400_000;

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

/** The publication pipeline: queue worker, retries, recovery sweep, Telegram pacing. */
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
  /** Wait for one Telegram send before its outcome counts as unknown. */
  sendTimeoutMs: number;
  /** Telegram pacing: messages per second per bot, and per minute per chat. */
  botMessagesPerSecond: number;
  chatMessagesPerMinute: number;
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

export interface PlatformsConfig {
  /** Discord's REST API, version included. */
  discordApiBaseUrl: string;
  /** The Bluesky service an account signs in to when it names none. */
  blueskyServiceUrl: string;
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
  telegramApiBaseUrl: string;
  /** The operator's addresses of platforms with one public API (never checked as outbound). */
  platforms: PlatformsConfig;
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

/** The S3 variables are read only for the S3 driver; otherwise they are ignored. */
function WhenS3(): PropertyDecorator {
  return ValidateIf((env: EnvironmentVariables) => env.MEDIA_STORAGE_DRIVER === 's3');
}

const HTTP = ['http:', 'https:'];
const MODEL_NAME = /^[\w.:/-]{1,100}$/;
/** Bucket naming rules of S3: 3 to 63 lower-case letters, digits, dots and hyphens. */
const S3_BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/**
 * Every environment variable Herald reads: its default and its rule. The errors come out in the
 * order of the properties. What each setting does is told on AppConfig above.
 */
export class EnvironmentVariables {
  @WholeNumber(0, 65535)
  PORT = 3000;

  @IsDefined(problem('is required'))
  @UrlOf(['postgres:', 'postgresql:'])
  DATABASE_URL!: string;

  @WholeNumber(1, 1_000)
  DATABASE_POOL_SIZE = 20;

  @WholeNumber(0, 86_400_000)
  DATABASE_POOL_IDLE_MS = 300_000;

  @UrlOf(['redis:', 'rediss:'])
  REDIS_URL = 'redis://127.0.0.1:6379';

  @Pattern(/^[A-Za-z0-9:_-]{1,64}$/)
  REDIS_KEY_PREFIX = 'herald';

  @UrlOf(HTTP)
  PUBLIC_BASE_URL = 'http://localhost:3000';

  @OneOf(MEDIA_STORAGE_DRIVERS)
  MEDIA_STORAGE_DRIVER: MediaStorageDriverName = 'local';

  @IsString()
  MEDIA_STORAGE_DIR = './.herald/media';

  @Omittable()
  @CidrList()
  OUTBOUND_ALLOW_CIDRS?: string[];

  /** The list's earlier name, read only when OUTBOUND_ALLOW_CIDRS is unset. */
  @ValidateIf((env: EnvironmentVariables) => env.OUTBOUND_ALLOW_CIDRS === undefined)
  @Omittable()
  @CidrList()
  MEDIA_FETCH_ALLOW_CIDRS?: string[];

  @WholeNumber(1, 600_000)
  MEDIA_FETCH_TIMEOUT_MS = 30_000;

  @UrlOf(HTTP)
  TELEGRAM_API_BASE_URL = 'https://api.telegram.org';

  @UrlOf(HTTP)
  DISCORD_API_BASE_URL = 'https://discord.com/api/v10';

  @UrlOf(HTTP)
  BLUESKY_SERVICE_URL = 'https://bsky.social';

  /** Unset: the AI routes are unavailable. */
  @Omittable()
  @UrlOf(HTTP)
  AI_API_BASE_URL?: string;

  @Omittable()
  @IsString()
  AI_API_KEY?: string;

  @Pattern(MODEL_NAME)
  AI_TEXT_MODEL = 'gpt-4o-mini';

  @Pattern(MODEL_NAME)
  AI_IMAGE_MODEL = 'dall-e-3';

  @WholeNumber(1, 600_000)
  AI_TIMEOUT_MS = 60_000;

  @IsDefined(problem('is required (at least 32 characters)'))
  @AtLeastCharacters(32)
  APP_SECRET!: string;

  @OneOf(APP_ROLES)
  APP_ROLE: AppRole = 'all';

  @OneOf(LOG_LEVELS)
  LOG_LEVEL: LogLevel = 'info';

  /** Addresses, subnets and Express's names for them (`loopback`), comma-separated. */
  @Pattern(/^[A-Za-z0-9.:/, ]{1,500}$/)
  TRUST_PROXY = 'loopback';

  @WholeNumber(14, 20)
  PASSWORD_HASH_LOG2_N = 17;

  @WholeNumber(0, 300_000)
  API_KEY_CACHE_MS = 10_000;

  @WholeNumber(100, 3_600_000)
  RATE_LIMIT_WINDOW_MS = 60_000;

  @WholeNumber(1, 1_000_000_000)
  RATE_LIMIT_UPLOAD = 10;

  @WholeNumber(1, 1_000_000_000)
  RATE_LIMIT_CREATE_POST = 10;

  @WholeNumber(1, 1_000_000_000)
  RATE_LIMIT_PUBLISH = 10;

  @WholeNumber(1, 1_000_000_000)
  RATE_LIMIT_OTHER = 30;

  @WholeNumber(1, 1_000_000_000)
  RATE_LIMIT_AUTH_FAILURES = 60;

  @WholeNumber(100, 24 * 3_600_000)
  SIGNIN_WINDOW_MS = 15 * 60_000;

  @WholeNumber(1, 1_000_000)
  SIGNIN_FAILURES_PER_ACCOUNT = 10;

  @WholeNumber(1, 1_000_000)
  SIGNIN_FAILURES_PER_ADDRESS = 30;

  @WholeNumber(1, 1_000_000_000)
  REGISTRATIONS_PER_ADDRESS_PER_HOUR = 10;

  @WholeNumber(1, 1_000_000_000)
  APP_RATE_LIMIT_PER_MINUTE = 300;

  @WholeNumber(1, 1_000_000_000)
  AI_GENERATIONS_PER_HOUR = 30;

  @TrueOrFalse()
  RATE_LIMIT_ENABLED = true;

  @WholeNumber(1, 10_000)
  PUBLICATION_CONCURRENCY = PUBLICATION_CONCURRENCY_DEFAULT;

  /** Bounds every queue and pacing call to Redis, the webhook queue's too, despite its name. */
  @WholeNumber(50, 60_000)
  PUBLICATION_ENQUEUE_TIMEOUT_MS = 2_000;

  @WholeNumber(100, 3_600_000)
  PUBLICATION_SWEEP_INTERVAL_MS = 30_000;

  @WholeNumber(1_000, 600_000)
  PUBLICATION_LOCK_MS = 30_000;

  @WholeNumber(1, 100)
  PUBLICATION_MAX_TRIES = 5;

  @WholeNumber(1, 600_000)
  PUBLICATION_RETRY_BASE_MS = 2_000;

  @WholeNumber(100, 600_000)
  TELEGRAM_SEND_TIMEOUT_MS = 30_000;

  @WholeNumber(1, 1_000_000)
  TELEGRAM_BOT_MESSAGES_PER_SECOND = 30;

  @WholeNumber(1, 1_000_000)
  TELEGRAM_CHAT_MESSAGES_PER_MINUTE = 20;

  /** Unset: GET /metrics answers 404. */
  @Omittable()
  @AtLeastCharacters(16)
  METRICS_TOKEN?: string;

  @WholeNumber(0, 65535)
  METRICS_PORT = 9464;

  @TrueOrFalse()
  METRICS_HTTP_ENABLED = true;

  @WholeNumber(100, 3_600_000)
  SHUTDOWN_TIMEOUT_MS = 10_000;

  @WholeNumber(0, 1_000_000)
  QUEUE_HISTORY_JOBS = 1_000;

  @WholeNumber(1, 24 * 365)
  QUEUE_HISTORY_HOURS = 24;

  @WholeNumberList(MAX_WEBHOOK_RETRIES, MAX_WEBHOOK_RETRY_DELAY_MS)
  WEBHOOK_RETRY_DELAYS_MS: readonly number[] = DEFAULT_WEBHOOK_RETRY_DELAYS_MS;

  @WholeNumber(1, 100_000)
  WEBHOOK_DISABLE_AFTER_EVENTS = 20;

  @WholeNumber(100, 60_000)
  WEBHOOK_TIMEOUT_MS = 10_000;

  @WholeNumber(1, 1000)
  WEBHOOK_CONCURRENCY = 50;

  @WholeNumber(1, 1000)
  WEBHOOK_ENDPOINT_CONCURRENCY = 10;

  @WholeNumber(1_000, 600_000)
  WEBHOOK_LOCK_MS = 15_000;

  @WholeNumber(100, 3_600_000)
  WEBHOOK_SWEEP_INTERVAL_MS = 10_000;

  /** Unset with its secret: the SDK's own chain applies (instance role, AWS_* variables). */
  @WhenS3()
  @SetTogetherWith('S3_SECRET_ACCESS_KEY')
  S3_ACCESS_KEY_ID?: string;

  @Omittable()
  @IsString()
  S3_SECRET_ACCESS_KEY?: string;

  @WhenS3()
  @IsDefined(problem('is required when MEDIA_STORAGE_DRIVER is s3'))
  @Pattern(S3_BUCKET_NAME)
  S3_BUCKET?: string;

  @WhenS3()
  @Pattern(/^[a-z0-9-]{1,40}$/)
  S3_REGION = 'us-east-1';

  /** An S3-compatible store (MinIO, R2…); unset for AWS itself. */
  @WhenS3()
  @Omittable()
  @UrlOf(HTTP)
  S3_ENDPOINT?: string;

  @WhenS3()
  @TrueOrFalse()
  S3_FORCE_PATH_STYLE = false;
}

/** Reads and validates the environment once; errors name the variable, never its value. */
export function loadConfig(env: Env): AppConfig {
  const { variables: v, problems } = readVariables(EnvironmentVariables, env);
  const found = Object.values(problems);
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
    telegramApiBaseUrl: withoutTrailingSlash(v.TELEGRAM_API_BASE_URL),
    platforms: {
      discordApiBaseUrl: withoutTrailingSlash(v.DISCORD_API_BASE_URL),
      blueskyServiceUrl: withoutTrailingSlash(v.BLUESKY_SERVICE_URL),
    },
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
      sendTimeoutMs: v.TELEGRAM_SEND_TIMEOUT_MS,
      botMessagesPerSecond: v.TELEGRAM_BOT_MESSAGES_PER_SECOND,
      chatMessagesPerMinute: v.TELEGRAM_CHAT_MESSAGES_PER_MINUTE,
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
  });
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
