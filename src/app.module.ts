import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { AccountsModule } from './accounts/accounts.module';
import { AdminModule } from './admin/admin.module';
import { AiModule } from './ai/ai.module';
import { AnalyticsModule } from './analytics/analytics.module';
import { ApiKeysModule } from './api-keys/api-keys.module';
import { ApiKeyGuard, ScopeGuard, SessionGuard } from './auth/auth.guards';
import { AuthModule } from './auth/auth.module';
import { ChannelsModule } from './channels/channels.module';
import { AppConfig } from './config/config';
import { ConfigModule } from './config/config.module';
import { CryptoModule } from './crypto/crypto.module';
import { DatabaseModule } from './database/database.module';
import { AllExceptionsFilter } from './errors/all-exceptions.filter';
import { HealthModule } from './health/health.module';
import { IdempotencyModule } from './idempotency/idempotency.module';
import { RequestInputGuard } from './input/request-input.guard';
import { LoggingModule } from './logging/logging.module';
import { McpModule } from './mcp/mcp.module';
import { MediaModule } from './media/media.module';
import { MembersModule } from './members/members.module';
import { MetricsModule } from './metrics/metrics.module';
import { OutboundModule } from './outbound/outbound.module';
import { PermissionGuard } from './members/permission.guard';
import { AppPostsModule } from './posts/app-posts.module';
import { PostsModule } from './posts/posts.module';
import { ProjectsModule } from './projects/projects.module';
import { RateLimitGuard } from './rate-limit/rate-limit.guard';
import { RateLimitModule } from './rate-limit/rate-limit.module';
import { RedisModule } from './redis/redis.module';
import { ShutdownModule } from './shutdown/shutdown.module';
import { StorageModule } from './storage/storage.module';
import { TemplatesModule } from './templates/templates.module';
import { PlatformsModule } from './platforms/platforms.module';
import { UsageModule } from './usage/usage.module';
import { WebhooksModule } from './webhooks/webhooks.module';
import { AnnouncementsModule } from './redis/announcements';

@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        LoggingModule,
        ShutdownModule,
        MetricsModule,
        DatabaseModule,
        RedisModule,
        AnnouncementsModule,
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
        AiModule,
        TemplatesModule,
        ChannelsModule,
        PostsModule,
        AppPostsModule,
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
        // The order of checks (docs/api-rules.md#order-of-checks): key → rate limit → scope →
        // project and permission → the body and query's own errors (held body errors, NUL). Nest
        // runs APP_GUARDs in this order. The session guard does nothing on the public API; on the
        // application API it names the user whose requests the rate limit counts.
        { provide: APP_GUARD, useClass: ApiKeyGuard },
        { provide: APP_GUARD, useClass: SessionGuard },
        { provide: APP_GUARD, useClass: RateLimitGuard },
        { provide: APP_GUARD, useClass: ScopeGuard },
        { provide: APP_GUARD, useClass: PermissionGuard },
        { provide: APP_GUARD, useClass: RequestInputGuard },
      ],
    };
  }
}
