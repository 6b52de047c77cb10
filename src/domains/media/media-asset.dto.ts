import { ApiProperty } from '@nestjs/swagger';

/** A stored file, as the upload answers it. */
export class MediaAssetDto {
  @ApiProperty({ example: 42, description: 'Use it in `media_ids` of a post' })
  id!: number;

  @ApiProperty({ enum: ['image', 'video'], example: 'image', description: 'From the file’s bytes' })
  type!: string;

  @ApiProperty({ example: 'sunset.jpg' })
  filename!: string;

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'A lighthouse at dusk, its beam over a calm sea',
    description:
      'What the image shows, for readers who cannot see it; null when none was given. Sent as its description by every platform that takes one',
  })
  alt_text!: string | null;

  @ApiProperty({ example: 'image/jpeg', description: 'From the file’s bytes' })
  mime_type!: string;

  @ApiProperty({ example: 183_204 })
  size_bytes!: number;

  @ApiProperty({ example: 'https://herald.example.com/media/projects/7/2026/11/5f0c1d2e.jpg' })
  url!: string;

  @ApiProperty({ example: 'projects/7/2026/11/5f0c1d2e.jpg' })
  storage_path!: string;

  @ApiProperty({ example: '2026-11-22T08:15:42.123456', description: 'UTC, microseconds' })
  created_at!: string;
}

export class MediaAssetListDto {
  @ApiProperty({ type: [MediaAssetDto] }) items!: MediaAssetDto[];
  @ApiProperty({ example: 1 }) count!: number;
}
