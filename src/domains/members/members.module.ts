import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ProjectsModule } from '../projects/projects.module';
import { User } from '../users/user.entity';
import { MembersController } from './members.controller';
import { MembersRepository } from './members.repository';
import { MembersService } from './members.service';
import { ProjectMember } from './project-member.entity';

@Global()
@Module({
  imports: [TypeOrmModule.forFeature([ProjectMember, User]), ProjectsModule],
  controllers: [MembersController],
  providers: [MembersService, MembersRepository],
  exports: [ProjectsModule, MembersService],
})
export class MembersModule {}
