import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsNotEmpty, IsString, MaxLength } from 'class-validator';
import { MAX_ALT_TEXT_LENGTH } from './media-asset.entity';
import { Omittable } from '../../http/input/omittable';

/** Longest URL accepted; longer ones are refused by validation before any network work. */
export const MAX_URL_LENGTH = 2048;
/** Longest `filename` accepted as input; it is then cut to 255 bytes. */
export const MAX_FILENAME_INPUT = 1024;

/** The JSON form of the upload: a file by its URL. */
export class UploadByUrlDto {
  @ApiProperty({
    description:
      'Absolute http or https URL of a public resource; credentials, localhost and private addresses are refused',
    example: 'https://example.com/images/sunset.jpg',
    maxLength: MAX_URL_LENGTH,
  })
  @IsString()
  @IsNotEmpty()
  @MaxLength(MAX_URL_LENGTH)
  url!: string;

  @ApiPropertyOptional({
    description:
      'Name to keep; sanitized and cut to 255 bytes. Default: the last path segment of the final URL, else `file.<ext>`',
    example: 'sunset.jpg',
    maxLength: MAX_FILENAME_INPUT,
  })
  @Omittable()
  @IsString()
  @MaxLength(MAX_FILENAME_INPUT)
  filename?: string;

  @AltTextProperty()
  alt_text?: string;
}

/** What the image shows, for readers who cannot see it: sent by every platform that takes one. */
export function AltTextProperty(): PropertyDecorator {
  return (target, key) => {
    ApiPropertyOptional({
      description: `What the image shows, for readers who cannot see it (at most ${MAX_ALT_TEXT_LENGTH} characters); sent as the image's description by every platform that takes one (docs/integrating.md#media-rules)`,
      example: 'A lighthouse at dusk, its beam over a calm sea',
      maxLength: MAX_ALT_TEXT_LENGTH,
      type: String,
      nullable: true,
    })(target, key);
    Omittable()(target, key);
    IsString()(target, key);
    MaxLength(MAX_ALT_TEXT_LENGTH)(target, key);
  };
}

/** The multipart form's text field beside the file. */
export class UploadFieldsDto {
  @AltTextProperty()
  alt_text?: string;
}

/** The multipart form of the upload (documentation only). */
export class UploadFileFormDto {
  @ApiProperty({
    type: 'string',
    format: 'binary',
    description:
      'Exactly one file: JPEG, PNG, GIF, WebP, MP4 or QuickTime, at most 52,428,800 bytes. The type is read from the bytes.',
  })
  files!: unknown;

  @AltTextProperty()
  alt_text?: string;
}
