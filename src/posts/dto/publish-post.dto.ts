import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayNotEmpty, ArrayUnique, IsArray, ValidateNested } from 'class-validator';
import { MAX_TARGETS_PER_POST } from '../post-state';
import { PostTargetDto } from './create-post.dto';

export class PublishPostDto {
  @ApiProperty({
    type: [PostTargetDto],
    minItems: 1,
    maxItems: MAX_TARGETS_PER_POST,
    description: "Replace the post's targets; targets already published are never sent again",
  })
  @IsArray()
  @ArrayNotEmpty()
  @ArrayMaxSize(MAX_TARGETS_PER_POST)
  @ArrayUnique((t: PostTargetDto | undefined) => t?.channel_ref, {
    message: 'targets must not repeat a channel_ref',
  })
  @ValidateNested({ each: true })
  @Type(() => PostTargetDto)
  targets!: PostTargetDto[];
}
