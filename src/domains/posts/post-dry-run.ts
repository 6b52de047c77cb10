import { Injectable } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { bodySetsAny } from '../../access/decorators';
import type { ProjectAccess } from '../../access/project-access';
import { AppError } from '../../http/errors/error-codes';
import { MAX_DB_ID } from '../../http/errors/parse-id.pipe';
import { flattenValidationErrors } from '../../http/errors/validation';
import { toChannelRef } from '../channels/channel-ref';
import type { OutgoingMedia } from '../platforms/platform';
import { PlatformRegistry } from '../platforms/platform-registry';
import { CreatePostDto, MAX_CHANNEL_REF_LENGTH, type PostTargetDto } from './dto/create-post.dto';
import type { PostValidationDto } from './dto/post-response.dto';
import { PostChecks } from './post-checks';
import { PostsRepository } from './posts.repository';
import type { ThreadItemRow } from './post-rows';
import {
  MAX_THREAD_ITEMS,
  planThread,
  threadMessages,
  type ThreadItem,
} from '../platforms/thread-items';

@Injectable()
export class PostDryRun {
  constructor(
    private readonly posts: PostsRepository,
    private readonly checks: PostChecks,
    private readonly platforms: PlatformRegistry,
  ) {}

  /** Create's own rules, every problem at once, and each target's message count; stores nothing. */
  async check(access: ProjectAccess, body: unknown): Promise<PostValidationDto> {
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      throw new AppError('validation_failed', 'The body must be a JSON object');
    const raw = body as Record<string, unknown>;
    const shape = flattenValidationErrors(
      await validate(plainToInstance(CreatePostDto, raw), CREATE_BODY_RULES),
    ).map((detail) => ({
      code: 'validation_failed' as const,
      message: `${detail.field}: ${detail.message}`,
      field: detail.field,
      channel_ref: null,
    }));
    const refs = wellFormedRefs(raw.targets);
    const mediaIds = wellFormedIds(raw.media_ids);
    const publishing = bodySetsAny(raw, ['scheduled_at', 'publish_now']);
    const text = typeof raw.text === 'string' ? raw.text : '';
    const thread = wellFormedThread(raw.thread);
    const split = raw.split_long_text === true;
    const checked = await this.posts.transaction((m) =>
      this.checks.check(m, access.project.id, {
        refs,
        text,
        mediaIds,
        publishing,
        thread,
        split,
      }),
    );
    const errors = [
      ...shape,
      ...checked.problems,
      // A field the body's shape already refuses is not measured again against the platforms.
      ...checked.limits.filter(
        (problem) =>
          !shape.some((refused) => refused.field === problem.field.replace(/\[(\d+)\]/g, '.$1')),
      ),
    ];
    const items: ThreadItem<OutgoingMedia>[] = [
      { text, media: checked.found },
      ...thread.map((item, i) => ({ text: item.text, media: checked.threadMedia[i] })),
    ];
    return {
      valid: errors.length === 0,
      errors,
      targets: checked.channels.map((channel) => {
        const platform = this.platforms.get(channel.platform);
        const steps = platform
          ? planThread(
              platform.publisher,
              threadMessages(platform, channel.limits ?? platform.limits, { items, split }),
            )
          : [];
        return {
          channel_ref: toChannelRef(channel.platform, channel.account_id, channel.channel_id),
          platform: channel.platform,
          messages: steps.length,
          messages_preview: steps.map((step) => step.text ?? ''),
        };
      }),
    };
  }
}

/** createValidationPipe's options. */
const CREATE_BODY_RULES = { whitelist: true, forbidNonWhitelisted: true, stopAtFirstError: false };

/** The DTO's problems name the rest. */
function wellFormedRefs(targets: unknown): PostTargetDto[] {
  if (!Array.isArray(targets)) return [];
  const refs = targets
    .map((t: unknown) => (t as { channel_ref?: unknown } | null)?.channel_ref)
    .filter(
      (ref): ref is string => typeof ref === 'string' && ref.length <= MAX_CHANNEL_REF_LENGTH,
    );
  return [...new Set(refs)].map((channel_ref) => ({ channel_ref }));
}

/** In their places, so problems name the items as given; the DTO's problems name the rest. */
function wellFormedThread(thread: unknown): ThreadItemRow[] {
  if (!Array.isArray(thread)) return [];
  return thread.slice(0, MAX_THREAD_ITEMS).map((item: unknown) => {
    const { text, media_ids } = (item ?? {}) as { text?: unknown; media_ids?: unknown };
    return { text: typeof text === 'string' ? text : '', media_ids: wellFormedIds(media_ids) };
  });
}

/** The DTO's problems name the rest. */
function wellFormedIds(ids: unknown): number[] {
  if (!Array.isArray(ids)) return [];
  return [
    ...new Set(
      ids.filter((id): id is number => Number.isInteger(id) && id >= 1 && id <= MAX_DB_ID),
    ),
  ];
}
