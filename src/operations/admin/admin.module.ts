import { Module } from '@nestjs/common';
import { AuthModule } from '../../domains/users/auth.module';
import { AdminSessionService } from './admin-session.service';
import { AdminController } from './admin.controller';
import { QueueBoard } from './queue-board';

/** The operator console (docs/api-rules.md#operations): sign-in pages and the queue dashboard. */
@Module({
  imports: [AuthModule],
  controllers: [AdminController],
  providers: [AdminSessionService, QueueBoard],
  exports: [QueueBoard],
})
export class AdminModule {}
