import { ApiProperty } from '@nestjs/swagger';
import { IsString, MaxLength, ValidateIf } from 'class-validator';
import { MAX_ALT_TEXT_LENGTH } from './media-asset.entity';

/** A change to a stored asset: its alt text, the one thing of it that is not its bytes. */
export class UpdateMediaDto {
  @ApiProperty({
    description: `What the image shows, for readers who cannot see it (at most ${MAX_ALT_TEXT_LENGTH} characters); \`null\` removes it. Posts not yet delivered send the new text (docs/integrating.md#media-rules)`,
    example: 'A lighthouse at dusk, its beam over a calm sea',
    maxLength: MAX_ALT_TEXT_LENGTH,
    type: String,
    nullable: true,
  })
  @ValidateIf((o: UpdateMediaDto) => o.alt_text !== null)
  @IsString()
  @MaxLength(MAX_ALT_TEXT_LENGTH)
  alt_text!: string | null;
}
