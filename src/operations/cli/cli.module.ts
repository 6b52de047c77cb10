import { DynamicModule, Module } from '@nestjs/common';
import { AccountsModule } from '../../domains/accounts/accounts.module';
import { ApiKeysModule } from '../../domains/api-keys/api-keys.module';
import { UsersModule } from '../../domains/users/users.module';
import { ChannelsModule } from '../../domains/channels/channels.module';
import { AppConfig } from '../../infrastructure/config/config';
import { ConfigModule } from '../../infrastructure/config/config.module';
import { CryptoModule } from '../../infrastructure/config/crypto.module';
import { DatabaseModule } from '../../infrastructure/database/database.module';
import { MembersModule } from '../../domains/members/members.module';
import { ProjectsModule } from '../../domains/projects/projects.module';
import { OutboundModule } from '../../infrastructure/outbound/outbound.module';
import { PlatformConnectorsModule } from '../../domains/platforms/platforms.module';
import { CacheInvalidationModule } from '../../infrastructure/redis/cache-invalidation';

/** The domain services the CLI commands need, without HTTP, queues or workers. */
@Module({})
export class CliModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: CliModule,
      imports: [
        ConfigModule.forRoot(config),
        DatabaseModule,
        CacheInvalidationModule,
        CryptoModule,
        // Connectors call addresses users gave (an instance) under the outbound rules.
        OutboundModule,
        PlatformConnectorsModule,
        UsersModule,
        ApiKeysModule,
        ProjectsModule,
        MembersModule,
        AccountsModule,
        ChannelsModule,
      ],
    };
  }
}
