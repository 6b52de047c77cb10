import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountsModule } from '../accounts/accounts.module';
import { ProjectsModule } from '../projects/projects.module';
import { AppConnectionsController, PublicConnectionsController } from './connections.controller';
import { ConnectionsRepository } from './connections.repository';
import { ConnectionsService } from './connections.service';
import { OAuthCallbackController } from './oauth-callback.controller';
import { OAuthClientRow } from './oauth-client.entity';
import { OAuthState } from './oauth-state.entity';
import { TokenRenewalModule } from './renewal/token-renewal.module';

/** Accounts connected through OAuth: starting a connection, and the platform's callback. */
@Module({
  imports: [
    TypeOrmModule.forFeature([OAuthState, OAuthClientRow]),
    AccountsModule,
    ProjectsModule,
    TokenRenewalModule,
  ],
  controllers: [PublicConnectionsController, AppConnectionsController, OAuthCallbackController],
  providers: [ConnectionsService, ConnectionsRepository],
})
export class ConnectionsModule {}
