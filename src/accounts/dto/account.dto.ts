import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsInt, IsNotEmpty, IsPositive, IsString, Matches, MaxLength } from 'class-validator';
import { type Platform, PLATFORMS } from '../account.entity';

/** Telegram bot tokens look like `123456:ABC-…`. */
const BOT_TOKEN_SHAPE = /^\d{1,20}:[A-Za-z0-9_-]{20,100}$/;

export class CreateAccountDto {
  @ApiProperty({ example: 1 })
  @IsInt()
  @IsPositive()
  project_id!: number;

  @ApiProperty({ enum: PLATFORMS, example: 'telegram' })
  @IsIn(PLATFORMS)
  platform!: Platform;

  @ApiProperty({
    description: 'Telegram bot token from @BotFather',
    example: '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw',
  })
  @IsString()
  @Matches(BOT_TOKEN_SHAPE, { message: 'bot_token must be a Telegram bot token' })
  bot_token!: string;
}

export class UpdateAccountDto {
  @ApiProperty({ description: 'A new Telegram bot token' })
  @IsString()
  @Matches(BOT_TOKEN_SHAPE, { message: 'bot_token must be a Telegram bot token' })
  bot_token!: string;
}

export class AddChannelDto {
  @ApiProperty({ description: 'Numeric chat id or @username', example: '@herald_news' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(64)
  @Matches(/^(-?\d{1,20}|@[A-Za-z0-9_]{4,32})$/, {
    message: 'chat must be a numeric chat id or an @username',
  })
  chat!: string;
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
