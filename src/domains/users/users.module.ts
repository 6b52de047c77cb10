import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Session } from './session.entity';
import { SessionsService } from './sessions.service';
import { User } from './user.entity';
import { UsersRepository } from './users.repository';
import { UsersService } from './users.service';

/** Users and their sessions, without HTTP: what the CLI and the console build on. */
@Module({
  imports: [TypeOrmModule.forFeature([User, Session])],
  providers: [UsersService, SessionsService, UsersRepository],
  exports: [UsersService, SessionsService],
})
export class UsersModule {}
