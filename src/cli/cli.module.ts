import { DynamicModule, Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { ApiKeysModule } from '../api-keys/api-keys.module';
import { UsersModule } from '../users/users.module';
import { ChannelsModule } from '../channels/channels.module';
import { AppConfig } from '../config/config';
import { ConfigModule } from '../config/config.module';
import { CryptoModule } from '../crypto/crypto.module';
import { DatabaseModule } from '../database/database.module';
import { MembersModule } from '../members/members.module';
import { ProjectsModule } from '../projects/projects.module';
import { OutboundModule } from '../outbound/outbound.module';
import { PlatformConnectorsModule } from '../platforms/platforms.module';
import { AnnouncementsModule } from '../redis/announcements';

/** The domain services the CLI commands need, without HTTP, queues or workers. */
@Module({})
export class CliModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: CliModule,
      imports: [
        ConfigModule.forRoot(config),
        DatabaseModule,
        AnnouncementsModule,
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
