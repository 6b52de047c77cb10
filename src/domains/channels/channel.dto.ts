import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { TextUnit } from '../platforms/platform-answers';
import {
  TEXT_UNITS,
  EXAMPLE_CHANNEL_ID,
  EXAMPLE_PLATFORM,
  PLATFORM_DESCRIPTORS,
  PLATFORM_NAMES,
} from '../platforms/platforms';

export class ChannelDto {
  @ApiProperty({
    description:
      '`{platform}:{account_id}:{channel_id}`, the channel id being everything after the second colon (a channel id may hold colons itself); use it as channel_ref',
    example: EXAMPLE_PLATFORM.examples.channelRef,
  })
  id!: string;

  @ApiProperty({ enum: PLATFORM_NAMES, example: EXAMPLE_PLATFORM.name })
  platform!: string;

  @ApiProperty({ example: Number(EXAMPLE_PLATFORM.examples.channelRef.split(':')[1]) })
  account_id!: number;

  @ApiProperty({
    description: `The channel’s id on its platform, as text: ${PLATFORM_DESCRIPTORS.map((p) => p.examples.channelId).join(', ')}`,
    example: EXAMPLE_CHANNEL_ID,
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
    enum: TEXT_UNITS.map((unit) => unit.name),
    description: `How text is counted: ${TEXT_UNITS.map((u) => `\`${u.name}\`, ${u.description}`).join('; ')}`,
    example: 'utf16',
  })
  text_unit!: TextUnit;

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

  @ApiPropertyOptional({
    description: 'A second limit of the text where the platform has one, in UTF-8 bytes',
    example: 3000,
  })
  text_max_bytes?: number;

  @ApiPropertyOptional({
    description:
      'Where the platform counts every http(s) link as this many characters whatever its length',
    example: 23,
  })
  url_length?: number;

  @ApiPropertyOptional({
    description: 'The most different links (http(s) or www.) one text may hold',
    example: 5,
  })
  links_max?: number;

  @ApiPropertyOptional({
    description: 'The most hashtags one text may hold',
    example: 30,
  })
  hashtags_max?: number;

  @ApiPropertyOptional({
    description: 'Where the platform takes no post without media: the fewest media a post holds',
    example: 1,
  })
  media_min?: number;
}

/** A channel as channel lists show it: with its public link and its platform's limits. */
export class ChannelListItemDto extends ChannelDto {
  @ApiProperty({
    nullable: true,
    type: String,
    description:
      'The channel’s public link (a public chat, a server channel, a profile); null where it has none (a chat without a public username)',
    example: EXAMPLE_PLATFORM.examples.channelUrl,
  })
  url!: string | null;

  @ApiProperty({ type: ChannelLimitsDto })
  limits!: ChannelLimitsDto;

  @ApiProperty({
    type: String,
    nullable: true,
    example: null,
    description:
      "When a send was last answered by the platform that this channel does not exist (deleted, or the account no longer in it): its targets fail `<platform>_rejected` with the platform's words. Null while the channel is fine; the next delivery to it clears it.",
  })
  missing_since!: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    example: null,
    description:
      'When the account must be connected again at the latest, because nothing can renew its access after that (a token without a refresh token, or a refresh token that expires itself). Null when its access renews itself or never expires.',
  })
  reconnect_by!: string | null;
}

export class ChannelListDto {
  @ApiProperty({ type: [ChannelListItemDto] }) items!: ChannelListItemDto[];
  @ApiProperty() count!: number;
}
