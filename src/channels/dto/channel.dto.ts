import { ApiProperty } from '@nestjs/swagger';

export class ChannelDto {
  @ApiProperty({
    description: '`{platform}:{account_id}:{channel_id}`; use it as channel_ref',
    example: 'telegram:3:-1001234567890',
  })
  id!: string;

  @ApiProperty({ example: 'telegram' })
  platform!: string;

  @ApiProperty({ example: 3 })
  account_id!: number;

  @ApiProperty({
    description: 'Chat id on the platform, as text (may be negative)',
    example: '-1001234567890',
  })
  channel_id!: string;

  @ApiProperty()
  title!: string;

  @ApiProperty({ nullable: true, type: String, example: 'herald_news' })
  username!: string | null;

  @ApiProperty()
  needs_reconnect!: boolean;
}

export class ChannelListDto {
  @ApiProperty({ type: [ChannelDto] }) items!: ChannelDto[];
  @ApiProperty() count!: number;
}
