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
  /** Milliseconds (60 s in production). */
  windowMs: number;
  upload: number;
  createPost: number;
  publish: number;
  other: number;
  authFailuresPerIp: number;
  signInWindowMs: number;
  /** Per account, and per client address, in one window. */
  signInFailuresPerAccount: number;
  signInFailuresPerAddress: number;
  registrationsPerAddressPerHour: number;
  appRequestsPerMinute: number;
  aiGenerationsPerHour: number;
  /** False turns every request limit off; for benchmarks only. */
  enabled: boolean;
}

export interface PublicationConfig {
  /** Jobs one worker process holds at once (sized for I/O: see PUBLICATION_CONCURRENCY_DEFAULT). */
  concurrency: number;
  /** Bounds each queue and pacing call to Redis, which otherwise hangs while Redis is away. */
  queueCallTimeoutMs: number;
  /** Bull's job lock: a killed worker's job is taken again within about twice this. */
  lockMs: number;
  sweepIntervalMs: number;
  /** How far ahead a scheduled post holds a delayed job (at least three sweeps). */
  scheduleHorizonMs: number;
  maxTries: number;
  /** Doubles with every further failure. */
  retryBaseMs: number;
  sendTimeoutMs: number;
}

export interface TokenRenewalConfig {
  /** How often every process looks for access tokens that expire soon. */
  sweepIntervalMs: number;
  /** Renewals one process's sweep makes at once (each holds a database connection meanwhile). */
  concurrency: number;
  /** How long the platform may take to answer a renewal (the account's row is held meanwhile). */
  timeoutMs: number;
}

/** Present only when MEDIA_STORAGE_DRIVER is `s3`. */
export interface S3Config {
  bucket: string;
  region: string;
  /** Null for AWS itself. */
  endpoint: string | null;
  accessKeyId: string | null;
  secretAccessKey: string | null;
  /** `https://endpoint/bucket/key` instead of `https://bucket.endpoint/key`. */
  forcePathStyle: boolean;
}

export interface OpsConfig {
  /** Null turns GET /metrics off (404). */
  metricsToken: string | null;
  /** 0 picks a free port. */
  metricsPort: number;
  httpMetrics: boolean;
  shutdownTimeoutMs: number;
  queueHistory: { jobs: number; ageSeconds: number };
}

export interface WebhookConfig {
  /** One more attempt than entries. */
  retryDelaysMs: readonly number[];
  disableAfterEvents: number;
  timeoutMs: number;
  concurrency: number;
  /** Per endpoint and worker process, so an endpoint that hangs holds no more than this. */
  endpointConcurrency: number;
  lockMs: number;
  sweepIntervalMs: number;
}

export interface DatabasePoolConfig {
  size: number;
  /** 0: never close. Closing idle connections quickly makes uneven load reconnect over and over. */
  idleMs: number;
}

export interface AppConfig {
  port: number;
  databaseUrl: string;
  databasePool: DatabasePoolConfig;
  redisUrl: string;
  /** Shared by the instances of one deployment. */
  redisKeyPrefix: string;
  publicBaseUrl: string;
  mediaStorageDriver: MediaStorageDriverName;
  mediaStorageDir: string;
  s3: S3Config | null;
  /** Private ranges user-given URLs may reach anyway: development and tests only. */
  outboundAllowCidrs: readonly string[];
  mediaFetchTimeoutMs: number;
  /** By platform name, as each descriptor read them. */
  platforms: Readonly<Record<string, unknown>>;
  aiApiBaseUrl: string | null;
  aiApiKey: string | null;
  aiTextModel: string;
  aiImageModel: string;
  aiTimeoutMs: number;
  appSecret: string;
  appRole: AppRole;
  logLevel: LogLevel;
  trustProxy: string;
  /** log2(N); older hashes are upgraded at sign-in. */
  passwordHashLog2N: number;
  /** Revocations reach processes through Redis: this bounds a lost one; 0: no cache. */
  apiKeyCacheMs: number;
  rateLimits: RateLimitConfig;
  publication: PublicationConfig;
  tokenRenewal: TokenRenewalConfig;
  ops: OpsConfig;
  webhooks: WebhookConfig;
  /** Start-up log lines: variables read under an earlier name. */
  notices: readonly string[];
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

export const ENV_FILE = '.env';

/** Process variables, completed by `.env` when there is one (a variable set, even empty, wins). */
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

/** A scheduled post enters the horizon at least this many sweeps before it is due. */
const SWEEPS_WITHIN_HORIZON = 3;

/** Errors name the variable, never its value. */
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
      scheduleHorizonMs: Math.max(
        v.PUBLICATION_SCHEDULE_HORIZON_MS,
        SWEEPS_WITHIN_HORIZON * v.PUBLICATION_SWEEP_INTERVAL_MS,
      ),
      lockMs: v.PUBLICATION_LOCK_MS,
      maxTries: v.PUBLICATION_MAX_TRIES,
      retryBaseMs: v.PUBLICATION_RETRY_BASE_MS,
      sendTimeoutMs: v.PUBLICATION_SEND_TIMEOUT_MS,
    },
    tokenRenewal: {
      sweepIntervalMs: v.TOKEN_SWEEP_INTERVAL_MS,
      concurrency: v.TOKEN_RENEWAL_CONCURRENCY,
      timeoutMs: v.TOKEN_RENEWAL_TIMEOUT_MS,
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

/** Unset variables read under their earlier names; a problem names the variable that was set. */
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

export function loadDatabaseUrl(env: Env): string {
  const { variables, problems } = readVariables(EnvironmentVariables, env);
  if (problems.DATABASE_URL) throw new ConfigError([problems.DATABASE_URL]);
  return variables.DATABASE_URL;
}

function s3Config(v: EnvironmentVariables): S3Config | null {
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
