import { Module } from '@nestjs/common';
import { MediaModule } from '../media/media.module';
import { PublicationModule } from '../publication/publication.module';
import { AppPostsController } from './app-posts.controller';
import { PostChecks } from './post-checks';
import { PostDryRun } from './post-dry-run';
import { PostInserts } from './post-inserts.repository';
import { PostsRepository } from './posts.repository';
import { PostsService } from './posts.service';
import { PublicPostsController } from './public-posts.controller';

/** Posts on both APIs: the public API's routes and the application API's, over one PostsService. */
@Module({
  imports: [MediaModule, PublicationModule],
  controllers: [PublicPostsController, AppPostsController],
  providers: [PostsRepository, PostInserts, PostChecks, PostDryRun, PostsService],
  exports: [PostsService],
})
export class PostsModule {}
