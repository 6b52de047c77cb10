import { Controller, Get, ServiceUnavailableException } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  HealthCheck,
  type HealthCheckResult,
  HealthCheckService,
  HealthIndicatorService,
  TypeOrmHealthIndicator,
} from '@nestjs/terminus';
import Redis from 'ioredis';
import { OpenRoute } from '../../access/decorators';
import { AppError } from '../../http/errors/error-codes';
import { InjectRedis } from '../../infrastructure/redis/redis.module';
import { withinTime } from '../../infrastructure/redis/time-limit';
import {
  PublicationMonitor,
  STALL_AFTER_SECONDS,
} from '../../domains/publication/publication-monitor';

const CHECK_TIMEOUT_MS = 1_500;

@Controller('health')
@OpenRoute()
@ApiTags('Health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly db: TypeOrmHealthIndicator,
    private readonly indicators: HealthIndicatorService,
    @InjectRedis() private readonly redis: Redis,
    private readonly publication: PublicationMonitor,
  ) {}

  @Get('live')
  @ApiOperation({ summary: 'The process is up' })
  @ApiOkResponse({
    schema: {
      type: 'object',
      required: ['status'],
      properties: { status: { type: 'string', enum: ['ok'] } },
    },
  })
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('ready')
  @HealthCheck()
  @ApiOperation({
    summary: 'PostgreSQL and Redis answer, and the publication pipeline moves',
    description: `\`publication\` is down when a due post has waited more than ${STALL_AFTER_SECONDS} s for a worker while no worker is alive; it names the post.`,
  })
  async ready(): Promise<HealthCheckResult> {
    try {
      return await this.health.check([
        () => this.db.pingCheck('database', { timeout: CHECK_TIMEOUT_MS }),
        () => this.redisCheck(),
        () => this.publicationCheck(),
      ]);
    } catch (error) {
      if (!(error instanceof ServiceUnavailableException)) throw error;
      // The answer names what is down, and why, so an alert says it too.
      const result = error.getResponse() as HealthCheckResult;
      const down = Object.entries(result.error ?? {}).map(
        ([name, detail]) => `${name}: ${String(detail?.message ?? 'down')}`,
      );
      throw new AppError('service_unavailable', `Not ready: ${down.join('; ')}`);
    }
  }

  private async publicationCheck() {
    const indicator = this.indicators.check('publication');
    try {
      const [workers, oldest] = await Promise.all([
        this.publication.liveWorkers(),
        this.publication.oldestUnclaimed(),
      ]);
      const details = {
        live_workers: workers,
        oldest_unclaimed_post_id: oldest?.postId ?? null,
        oldest_unclaimed_seconds: oldest ? Math.floor(oldest.waitedSeconds) : null,
      };
      if (workers === 0 && oldest && oldest.waitedSeconds > STALL_AFTER_SECONDS)
        return indicator.down({
          ...details,
          message: `Post ${oldest.postId} has waited ${Math.floor(oldest.waitedSeconds)} s for a worker, and no worker is alive`,
        });
      return indicator.up(details);
    } catch (error) {
      return indicator.down({ message: (error as Error).message });
    }
  }

  private async redisCheck() {
    const indicator = this.indicators.check('redis');
    try {
      const answer = await withinTime(
        this.redis.ping(),
        CHECK_TIMEOUT_MS,
        () => new Error('timeout'),
      );
      return answer === 'PONG' ? indicator.up() : indicator.down({ message: 'unexpected answer' });
    } catch (error) {
      return indicator.down({ message: (error as Error).message });
    }
  }
}
