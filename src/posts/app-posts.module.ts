import { Module } from '@nestjs/common';
import { AppPostsController } from './app-posts.controller';
import { PostsModule } from './posts.module';

/** The application API's post routes (issue 6), on top of the posts issue's PostsService. */
@Module({
  imports: [PostsModule],
  controllers: [AppPostsController],
})
export class AppPostsModule {}
