import { Inject, Injectable } from '@nestjs/common';
import { Readable } from 'node:stream';
import type { MediaAssetDto } from '../media/media-asset.dto';
import { MediaService } from '../media/media.service';
import { PLATFORM_DESCRIPTORS } from '../platforms/platforms';
import { MAX_TEXT_LENGTH } from '../posts/post-state';
import { AI_PROVIDER, type AiProvider } from './ai-provider';

const AUDIENCE = PLATFORM_DESCRIPTORS.map((platform) => platform.aiAudience).join(' and ');

export const POST_INSTRUCTIONS =
  `You write posts for ${AUDIENCE}. Answer with the post text only, ready to publish, ` +
  `at most ${MAX_TEXT_LENGTH} characters, in the language of the request.`;

export const TEMPLATE_INSTRUCTIONS =
  `You write reusable post templates for ${AUDIENCE}. Answer with the template text only, ` +
  `at most ${MAX_TEXT_LENGTH} characters, with placeholders such as {product} or {date} where ` +
  'details vary, in the language of the request.';

/** docs/api-rules.md#ai-generation; images become MediaAssets of the project. */
@Injectable()
export class AiService {
  constructor(
    @Inject(AI_PROVIDER) private readonly provider: AiProvider,
    private readonly media: MediaService,
  ) {}

  async generatePost(prompt: string): Promise<{ text: string }> {
    return { text: clip(await this.provider.generateText(POST_INSTRUCTIONS, prompt)) };
  }

  /** Stored like an upload (type from its bytes). */
  async generateImage(projectId: number, userId: number, prompt: string): Promise<MediaAssetDto> {
    const image = await this.provider.generateImage(prompt);
    const asset = await this.media.storeStream(
      projectId,
      userId,
      Readable.from([image.bytes]),
      null,
    );
    return this.media.toDto(asset);
  }

  async generateTemplateText(prompt: string): Promise<string> {
    return clip(await this.provider.generateText(TEMPLATE_INSTRUCTIONS, prompt));
  }
}

function clip(text: string): string {
  return [...text].slice(0, MAX_TEXT_LENGTH).join('');
}
