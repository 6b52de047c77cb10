import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Channel } from './channel.entity';
import { ChannelsService } from './channels.service';
import { PublicChannelsController } from './public-channels.controller';

@Module({
  imports: [TypeOrmModule.forFeature([Channel])],
  controllers: [PublicChannelsController],
  providers: [ChannelsService],
  exports: [ChannelsService],
})
export class ChannelsModule {}
