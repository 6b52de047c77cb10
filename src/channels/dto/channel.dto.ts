import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

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

/** The most bytes one file may have, per media kind; a kind the platform does not take is absent. */
export class MediaMaxBytesDto {
  @ApiPropertyOptional({ example: 52428800 }) image?: number;
  @ApiPropertyOptional({ example: 52428800 }) video?: number;
}

/** What one post may hold on the channel's platform. */
export class ChannelLimitsDto {
  @ApiProperty({ description: 'The longest text, counted in `text_unit`', example: 4096 })
  text_max!: number;

  @ApiProperty({
    enum: ['utf16', 'graphemes'],
    description:
      'How text is counted: UTF-16 code units, or graphemes (characters as people see them)',
    example: 'utf16',
  })
  text_unit!: 'utf16' | 'graphemes';

  @ApiProperty({ description: 'The most media files in one post', example: 10 })
  media_max!: number;

  @ApiProperty({
    enum: ['image', 'video'],
    isArray: true,
    description: 'The media kinds the platform takes',
    example: ['image', 'video'],
  })
  media_kinds!: ('image' | 'video')[];

  @ApiProperty({ type: MediaMaxBytesDto })
  media_max_bytes!: MediaMaxBytesDto;
}

/** A channel as channel lists show it: with its public link and its platform's limits. */
export class ChannelListItemDto extends ChannelDto {
  @ApiProperty({
    nullable: true,
    type: String,
    description: 'The channel’s public link; null where it has none (a chat without a username)',
    example: 'https://t.me/herald_news',
  })
  url!: string | null;

  @ApiProperty({ type: ChannelLimitsDto })
  limits!: ChannelLimitsDto;
}

export class ChannelListDto {
  @ApiProperty({ type: [ChannelListItemDto] }) items!: ChannelListItemDto[];
  @ApiProperty() count!: number;
}
