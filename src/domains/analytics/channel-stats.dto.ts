import { ApiProperty } from '@nestjs/swagger';
import { ChannelListItemDto } from '../channels/channel.dto';

/** A channel of the project (as the channel list gives it) with its post counts. */
export class ChannelStatsDto extends ChannelListItemDto {
  @ApiProperty({
    description: 'Posts waiting for their time (status scheduled) that target this channel',
  })
  scheduled!: number;

  @ApiProperty({ description: 'Posts delivered to this channel' })
  published!: number;

  @ApiProperty({ description: 'Deliveries to this channel that failed for good' })
  failed!: number;
}

export class ChannelStatsListDto {
  @ApiProperty({ type: [ChannelStatsDto] }) items!: ChannelStatsDto[];
  @ApiProperty() count!: number;
}
