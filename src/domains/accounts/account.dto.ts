import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsPositive, IsString, MaxLength } from 'class-validator';
import { Omittable } from '../../http/input/omittable';
import { type Platform, PLATFORMS } from './account.entity';

/** Long enough for any platform's credential or address; each platform checks its own shape. */
const MAX_FIELD_LENGTH = 2048;

/**
 * The credentials of an account, each platform reading its own (and refusing the others'): a
 * Telegram or Discord `bot_token`; a Mastodon `instance_url` and `access_token`; a Bluesky
 * `identifier`, `app_password` and optional `service_url`.
 */
export class AccountCredentialsDto {
  @ApiPropertyOptional({
    description:
      "Telegram: the bot token from @BotFather. Discord: the bot token from the developer portal (the application's Bot page, Reset Token)",
    example: '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw',
  })
  @Omittable()
  @IsString()
  @MaxLength(MAX_FIELD_LENGTH)
  bot_token?: string;

  @ApiPropertyOptional({
    description:
      "Mastodon: the address of the account's instance (http or https; kept as its origin). A user's address: it must be public unless OUTBOUND_ALLOW_CIDRS lists it (else invalid_url or url_not_allowed)",
    example: 'https://mastodon.social',
  })
  @Omittable()
  @IsString()
  @MaxLength(MAX_FIELD_LENGTH)
  instance_url?: string;

  @ApiPropertyOptional({
    description:
      "Mastodon: the access token of an application made under Preferences → Development with the scopes read:accounts, write:statuses and write:media (its page shows 'Your access token')",
  })
  @Omittable()
  @IsString()
  @MaxLength(MAX_FIELD_LENGTH)
  access_token?: string;

  @ApiPropertyOptional({ description: 'Bluesky: the handle or DID', example: 'herald.bsky.social' })
  @Omittable()
  @IsString()
  @MaxLength(MAX_FIELD_LENGTH)
  identifier?: string;

  @ApiPropertyOptional({ description: 'Bluesky: an app password (Settings → App passwords)' })
  @Omittable()
  @IsString()
  @MaxLength(MAX_FIELD_LENGTH)
  app_password?: string;

  @ApiPropertyOptional({
    description: "Bluesky: the account's service (its PDS); the operator's default when absent",
    example: 'https://bsky.social',
  })
  @Omittable()
  @IsString()
  @MaxLength(MAX_FIELD_LENGTH)
  service_url?: string;
}

export class CreateAccountDto extends AccountCredentialsDto {
  @ApiProperty({ example: 1 })
  @IsInt()
  @IsPositive()
  project_id!: number;

  @ApiProperty({ enum: PLATFORMS, example: 'telegram' })
  @IsIn(PLATFORMS)
  platform!: Platform;
}

/** New credentials, the same fields as the account's platform takes at connect. */
export class UpdateAccountDto extends AccountCredentialsDto {}

/** The channel to add: a Telegram `chat` (numeric id or @username) or a Discord `channel_id`. */
export class AddChannelDto {
  @ApiPropertyOptional({
    description: 'Telegram: numeric chat id or @username',
    example: '@herald_news',
  })
  @Omittable()
  @IsString()
  @MaxLength(64)
  chat?: string;

  @ApiPropertyOptional({
    description:
      'Discord: the id of a text or announcement channel the bot can see (with developer mode on, right-click the channel, Copy Channel ID)',
    example: '1100000000000000001',
  })
  @Omittable()
  @IsString()
  @MaxLength(64)
  channel_id?: string;
}

export class AccountResponseDto {
  @ApiProperty() id!: number;
  @ApiProperty() project_id!: number;
  @ApiProperty({ example: 'telegram' }) platform!: string;
  @ApiProperty() title!: string;
  @ApiProperty({ nullable: true, type: String }) username!: string | null;
  @ApiProperty() needs_reconnect!: boolean;
  @ApiProperty() created_at!: string;
}

/** Bodies the API documentation offers, one per platform, each accepted as it stands (shapes only). */
export const CONNECT_EXAMPLES = {
  telegram: {
    value: {
      project_id: 1,
      platform: 'telegram',
      bot_token: '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw',
    },
  },
  discord: {
    value: {
      project_id: 1,
      platform: 'discord',
      bot_token: 'MTEwMDAwMDAwMDAwMDAwMDAwMQ.GaBcDe.abcdefghijklmnopqrstuvwxyz0123456789AB',
    },
  },
  mastodon: {
    value: {
      project_id: 1,
      platform: 'mastodon',
      instance_url: 'https://mastodon.social',
      access_token: 'your-application-access-token',
    },
  },
  bluesky: {
    value: {
      project_id: 1,
      platform: 'bluesky',
      identifier: 'herald.bsky.social',
      app_password: 'abcd-efgh-ijkl-mnop',
    },
  },
};

export const RECONNECT_EXAMPLES = Object.fromEntries(
  Object.entries(CONNECT_EXAMPLES).map(([name, { value }]) => {
    const { project_id: _project, platform: _platform, ...fields } = value;
    return [name, { value: fields }];
  }),
);

export const CHANNEL_EXAMPLES = {
  telegram: { value: { chat: '@herald_news' } },
  discord: { value: { channel_id: '1100000000000000001' } },
};
