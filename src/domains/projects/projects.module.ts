import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Project } from './project.entity';
import { ProjectsController } from './projects.controller';
import { ProjectAccessCache } from '../../access/project-access-cache';
import { ProjectsRepository } from './projects.repository';
import { ProjectsService } from './projects.service';
import { PublicProjectsController } from './public-projects.controller';

@Module({
  imports: [TypeOrmModule.forFeature([Project])],
  controllers: [PublicProjectsController, ProjectsController],
  providers: [ProjectsService, ProjectsRepository, ProjectAccessCache],
  exports: [ProjectsService],
})
export class ProjectsModule {}
