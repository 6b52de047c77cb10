import { Global, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';
import { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { withinTime } from './time-limit';

export const REDIS = Symbol('REDIS');
/** How long stopping waits for Redis to answer QUIT before dropping the connection. */
const QUIT_TIMEOUT_MS = 1_000;
export const InjectRedis = (): ParameterDecorator => Inject(REDIS);

/** One shared ioredis client for health checks and rate limits; Bull keeps its own connections. */
export function createRedisClient(config: AppConfig): Redis {
  return new Redis(config.redisUrl, {
    lazyConnect: false,
    maxRetriesPerRequest: 1,
    // Fail fast instead of queueing commands while Redis is away (see the README on rate limits).
    enableOfflineQueue: false,
    // Same-turn scripts share a socket write (batchSocketWrites), no Pipeline objects.
    enableAutoPipelining: false,
    connectTimeout: 2_000,
  });
}

@Global()
@Module({
  providers: [{ provide: REDIS, inject: [APP_CONFIG], useFactory: createRedisClient }],
  exports: [REDIS],
})
export class RedisModule implements OnApplicationShutdown {
  constructor(@InjectRedis() private readonly redis: Redis) {}

  /** QUIT, unless Redis does not answer it in time (a hung Redis keeps the connection open). */
  async onApplicationShutdown(): Promise<void> {
    await withinTime(this.redis.quit(), QUIT_TIMEOUT_MS).catch(() => undefined);
    this.redis.disconnect();
  }
}
