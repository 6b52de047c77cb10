import { IsDefined, IsString, ValidateIf } from 'class-validator';
import { Omittable } from '../../http/input/omittable';
import {
  AtLeastCharacters,
  CidrList,
  OneOf,
  Pattern,
  problem,
  SetTogetherWith,
  TrueOrFalse,
  UrlOf,
  WholeNumber,
  WholeNumberList,
} from './variable-rules';

// Every variable Herald reads, its default and its rule; what each does is told on AppConfig.

export type AppRole = 'all' | 'api' | 'worker';
export const APP_ROLES: readonly AppRole[] = ['all', 'api', 'worker'];
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export type MediaStorageDriverName = 'local' | 's3';
export const MEDIA_STORAGE_DRIVERS: readonly MediaStorageDriverName[] = ['local', 's3'];

/** Jobs mostly wait: room for ten busy bots (docs/performance.md#worker-concurrency). */
export const PUBLICATION_CONCURRENCY_DEFAULT = 400;

/** 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
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
const MAX_WEBHOOK_RETRY_DELAY_MS = 86_400_000;

function WhenS3(): PropertyDecorator {
  return ValidateIf((env: EnvironmentVariables) => env.MEDIA_STORAGE_DRIVER === 's3');
}

const HTTP = ['http:', 'https:'];
const MODEL_NAME = /^[\w.:/-]{1,100}$/;
const S3_BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/** Errors come out in the order of the properties. */
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

  @ValidateIf((env: EnvironmentVariables) => env.OUTBOUND_ALLOW_CIDRS === undefined)
  @Omittable()
  @CidrList()
  MEDIA_FETCH_ALLOW_CIDRS?: string[];

  @WholeNumber(1, 600_000)
  MEDIA_FETCH_TIMEOUT_MS = 30_000;

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

  /** Bounds the webhook queue's calls too, despite its name. */
  @WholeNumber(50, 60_000)
  PUBLICATION_ENQUEUE_TIMEOUT_MS = 2_000;

  @WholeNumber(100, 3_600_000)
  PUBLICATION_SWEEP_INTERVAL_MS = 30_000;

  /** A scheduled post gets its queue job once it is due within this; the sweep adds it then. */
  @WholeNumber(1_000, 31_622_400_000)
  PUBLICATION_SCHEDULE_HORIZON_MS = 600_000;

  @WholeNumber(1_000, 600_000)
  PUBLICATION_LOCK_MS = 30_000;

  @WholeNumber(100, 3_600_000)
  TOKEN_SWEEP_INTERVAL_MS = 60_000;

  @WholeNumber(1, 64)
  TOKEN_RENEWAL_CONCURRENCY = 4;

  @WholeNumber(100, 120_000)
  TOKEN_RENEWAL_TIMEOUT_MS = 10_000;

  @WholeNumber(1, 100)
  PUBLICATION_MAX_TRIES = 5;

  @WholeNumber(1, 600_000)
  PUBLICATION_RETRY_BASE_MS = 2_000;

  @WholeNumber(100, 600_000)
  PUBLICATION_SEND_TIMEOUT_MS = 30_000;

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

  @WhenS3()
  @Omittable()
  @UrlOf(HTTP)
  S3_ENDPOINT?: string;

  @WhenS3()
  @TrueOrFalse()
  S3_FORCE_PATH_STYLE = false;
}
