import { Injectable } from '@nestjs/common';
import Redis from 'ioredis';
import type { AppConfig } from '../../../infrastructure/config/config';
import { InjectConfig } from '../../../infrastructure/config/config.module';
import { InjectRedis } from '../../../infrastructure/redis/redis.module';
import { WindowPacing } from '../window-pacing';
import { telegramSettings } from './telegram-settings';

/** About 30 messages a second per bot and 20 a minute per group or channel. */
@Injectable()
export class TelegramPacing extends WindowPacing {
  constructor(@InjectRedis() redis: Redis, @InjectConfig() config: AppConfig) {
    const { botMessagesPerSecond, chatMessagesPerMinute } = telegramSettings(config);
    super(
      redis,
      config,
      {
        account: { limit: botMessagesPerSecond, windowMs: 1000 },
        channel: { limit: chatMessagesPerMinute, windowMs: 60_000 },
      },
      'Telegram',
    );
  }
}
