import { Module } from '@nestjs/common';
import { AppPostsController } from './app-posts.controller';
import { PostsModule } from './posts.module';

/** The application API's post routes, on top of the public API's PostsService. */
@Module({
  imports: [PostsModule],
  controllers: [AppPostsController],
})
export class AppPostsModule {}
