import { Module } from '@nestjs/common';
import { UsersModule } from './users.module';
import { AuthController } from './auth.controller';

/** Registration, sign-in and sessions on the application API. */
@Module({
  imports: [UsersModule],
  controllers: [AuthController],
  exports: [UsersModule],
})
export class AuthModule {}
