import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsNotEmpty, IsString, MaxLength } from 'class-validator';
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
}
