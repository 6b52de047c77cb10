import { Module } from '@nestjs/common';
import { ChannelsRepository } from './channels.repository';
import { ChannelsService } from './channels.service';
import { PublicChannelsController } from './public-channels.controller';

@Module({
  controllers: [PublicChannelsController],
  providers: [ChannelsService, ChannelsRepository],
  exports: [ChannelsService],
})
export class ChannelsModule {}
