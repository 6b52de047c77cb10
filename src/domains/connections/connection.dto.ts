import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsString, IsUrl, MaxLength } from 'class-validator';
import { Omittable } from '../../http/input/omittable';
import { declareFields, MAX_FIELD_LENGTH } from '../accounts/account.dto';
import { PLATFORM_DESCRIPTORS } from '../platforms/platforms';

/** The platforms whose accounts connect through OAuth, in the registration list's order. */
export const OAUTH_PLATFORMS = PLATFORM_DESCRIPTORS.filter((platform) => platform.oauth);
export const OAUTH_PLATFORM_NAMES = OAUTH_PLATFORMS.map((platform) => platform.name);

export const MAX_REDIRECT_URL_LENGTH = 2048;

/** A connection to start: the platform, where the browser goes at the end, the platform's own fields. */
export class StartConnectionDto {
  [field: string]: unknown;

  @ApiProperty({ enum: OAUTH_PLATFORM_NAMES, example: OAUTH_PLATFORM_NAMES[0] })
  @IsIn(OAUTH_PLATFORM_NAMES)
  platform!: string;

  @ApiPropertyOptional({
    description:
      'Absolute http(s) URL the browser is sent to when the connection is over, with `status=connected&account_id=<id>` or `status=error&error=<code>` added to its query. Without it, Herald shows a small page saying what happened.',
    example: 'https://app.example.com/settings/accounts',
    maxLength: MAX_REDIRECT_URL_LENGTH,
  })
  @Omittable()
  @IsString()
  @MaxLength(MAX_REDIRECT_URL_LENGTH)
  @IsUrl(
    { protocols: ['http', 'https'], require_protocol: true, require_tld: false },
    { message: 'redirect_url must be an absolute http or https URL' },
  )
  redirect_url?: string;
}
declareFields(
  StartConnectionDto,
  OAUTH_PLATFORMS.map(({ displayName, oauth }) => ({ displayName, fields: oauth!.fields })),
  MAX_FIELD_LENGTH,
);

export class ConnectionStartedDto {
  @ApiProperty({
    description:
      'Send the user here (their browser): they sign in on the platform and allow Herald. Single use.',
    example:
      'https://social.example/oauth/authorize?response_type=code&client_id=…&redirect_uri=…&scope=…&state=…&code_challenge=…&code_challenge_method=S256',
  })
  authorize_url!: string;

  @ApiProperty({
    example: '2026-12-04T09:10:00.000000',
    description: 'UTC; after it the link no longer connects anything (10 minutes)',
  })
  expires_at!: string;
}

/** Bodies the API documentation offers, one per platform that connects through OAuth. */
export const START_EXAMPLES = Object.fromEntries(
  OAUTH_PLATFORMS.map(({ name, oauth }) => [
    name,
    {
      value: {
        platform: name,
        redirect_url: 'https://app.example.com/settings/accounts',
        ...oauth!.example,
      },
    },
  ]),
);
