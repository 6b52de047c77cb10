import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, DiscoveryModule } from '@nestjs/core';
import { AccountsModule } from './domains/accounts/accounts.module';
import { ConnectionsModule } from './domains/connections/connections.module';
import { AdminModule } from './operations/admin/admin.module';
import { AiModule } from './domains/ai/ai.module';
import { AnalyticsModule } from './domains/analytics/analytics.module';
import { ApiKeysModule } from './domains/api-keys/api-keys.module';
import { ACCESS_GUARDS } from './access/access-guards';
import { ProjectLookups } from './access/project-lookups';
import { AuthModule } from './domains/users/auth.module';
import { ChannelsModule } from './domains/channels/channels.module';
import { AppConfig } from './infrastructure/config/config';
import { ConfigModule } from './infrastructure/config/config.module';
import { CryptoModule } from './infrastructure/config/crypto.module';
import { DatabaseModule } from './infrastructure/database/database.module';
import { AllExceptionsFilter } from './http/errors/all-exceptions.filter';
import { HealthModule } from './operations/monitoring/health.module';
import { IdempotencyModule } from './http/idempotency/idempotency.module';
import { LoggingModule } from './infrastructure/logging/logging.module';
import { McpModule } from './domains/mcp/mcp.module';
import { MediaModule } from './domains/media/media.module';
import { MembersModule } from './domains/members/members.module';
import { MetricsModule } from './operations/monitoring/metrics.module';
import { OutboundModule } from './infrastructure/outbound/outbound.module';
import { PostsModule } from './domains/posts/posts.module';
import { ProjectsModule } from './domains/projects/projects.module';
import { RateLimitModule } from './infrastructure/rate-limit/rate-limit.module';
import { RedisModule } from './infrastructure/redis/redis.module';
import { ShutdownModule } from './infrastructure/shutdown/shutdown.module';
import { StorageModule } from './infrastructure/storage/storage.module';
import { TemplatesModule } from './domains/templates/templates.module';
import { PlatformsModule } from './domains/platforms/platforms.module';
import { UsageModule } from './domains/analytics/usage.module';
import { WebhooksModule } from './domains/webhooks/webhooks.module';
import { CacheInvalidationModule } from './infrastructure/redis/cache-invalidation';

@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        DiscoveryModule,
        LoggingModule,
        ShutdownModule,
        MetricsModule,
        DatabaseModule,
        RedisModule,
        CacheInvalidationModule,
        RateLimitModule,
        CryptoModule,
        IdempotencyModule,
        OutboundModule,
        PlatformsModule,
        AuthModule,
        ApiKeysModule,
        ProjectsModule,
        MembersModule,
        AccountsModule,
        ConnectionsModule,
        AiModule,
        TemplatesModule,
        ChannelsModule,
        PostsModule,
        AnalyticsModule,
        StorageModule,
        MediaModule,
        UsageModule,
        WebhooksModule,
        McpModule,
        HealthModule,
        AdminModule,
      ],
      providers: [
        { provide: APP_FILTER, useClass: AllExceptionsFilter },
        // Nest runs global guards in the order they are registered.
        ...ACCESS_GUARDS.map((guard) => ({ provide: APP_GUARD, useClass: guard })),
        ProjectLookups,
      ],
    };
  }
}
