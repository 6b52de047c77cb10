import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  HealthCheck,
  HealthCheckService,
  HealthIndicatorService,
  TypeOrmHealthIndicator,
} from '@nestjs/terminus';
import Redis from 'ioredis';
import { OpenRoute } from '../../access/decorators';
import { InjectRedis } from '../../infrastructure/redis/redis.module';
import { withinTime } from '../../infrastructure/redis/time-limit';

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
  @ApiOperation({ summary: 'PostgreSQL and Redis answer' })
  ready() {
    return this.health.check([
      () => this.db.pingCheck('database', { timeout: CHECK_TIMEOUT_MS }),
      () => this.redisCheck(),
    ]);
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
