import { ApiProperty } from '@nestjs/swagger';
import { ArrayNotEmpty } from 'class-validator';
import { MAX_TARGETS_PER_POST } from '../post-state';
import { PostTargetDto, TargetsList } from './create-post.dto';

export class PublishPostDto {
  @ApiProperty({
    type: [PostTargetDto],
    minItems: 1,
    maxItems: MAX_TARGETS_PER_POST,
    description: "Replace the post's targets; targets already published are never sent again",
  })
  @TargetsList()
  @ArrayNotEmpty()
  targets!: PostTargetDto[];
}
