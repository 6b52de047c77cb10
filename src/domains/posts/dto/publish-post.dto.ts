import { ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayNotEmpty } from 'class-validator';
import { OptionalBody } from '../../../http/errors/validation';
import { Omittable } from '../../../http/input/omittable';
import { MAX_TARGETS_PER_POST } from '../post-state';
import { PostTargetDto, TargetsList } from './create-post.dto';

/** The body may be left out altogether: the post is then published to the targets it has. */
@OptionalBody()
export class PublishPostDto {
  @ApiPropertyOptional({
    type: [PostTargetDto],
    minItems: 1,
    maxItems: MAX_TARGETS_PER_POST,
    description:
      "Replace the post's targets; targets already published are never sent again. Left out (or no body at all): the post's own targets",
  })
  @Omittable()
  @TargetsList()
  @ArrayNotEmpty()
  targets?: PostTargetDto[];
}
