import { Logger } from '@nestjs/common';
import { fetch } from 'undici';
import type { AppConfig } from '../../infrastructure/config/config';
import { AppError } from '../../http/errors/error-codes';
import type { AiProvider, GeneratedImage } from './ai-provider';

/** Square fits every channel preview. */
export const AI_IMAGE_SIZE = '1024x1024';

interface ChatCompletion {
  choices?: { message?: { content?: unknown } }[];
}

interface ImagesResponse {
  data?: { b64_json?: unknown }[];
}

/** `/chat/completions` for text, `/images/generations` with `b64_json` for images. */
export class OpenAiCompatibleProvider implements AiProvider {
  private readonly logger = new Logger(OpenAiCompatibleProvider.name);

  constructor(
    private readonly config: Pick<
      AppConfig,
      'aiApiKey' | 'aiTextModel' | 'aiImageModel' | 'aiTimeoutMs'
    > & { aiApiBaseUrl: string },
  ) {}

  async generateText(instructions: string, prompt: string): Promise<string> {
    const body = (await this.post('/chat/completions', {
      model: this.config.aiTextModel,
      messages: [
        { role: 'system', content: instructions },
        { role: 'user', content: prompt },
      ],
    })) as ChatCompletion;
    const content = body.choices?.[0]?.message?.content;
    if (typeof content !== 'string' || content.trim() === '') {
      throw new AppError('ai_failed', 'The AI provider returned no text');
    }
    return content.trim();
  }

  async generateImage(prompt: string): Promise<GeneratedImage> {
    const body = (await this.post('/images/generations', {
      model: this.config.aiImageModel,
      prompt,
      n: 1,
      size: AI_IMAGE_SIZE,
      response_format: 'b64_json',
    })) as ImagesResponse;
    const encoded = body.data?.[0]?.b64_json;
    if (typeof encoded !== 'string' || encoded === '') {
      throw new AppError('ai_failed', 'The AI provider returned no image');
    }
    return { bytes: Buffer.from(encoded, 'base64') };
  }

  private async post(path: string, payload: object): Promise<unknown> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.config.aiApiKey) headers.authorization = `Bearer ${this.config.aiApiKey}`;
    let response;
    try {
      response = await fetch(`${this.config.aiApiBaseUrl}${path}`, {
        method: 'POST',
        headers,
        body: JSON.stringify(payload),
        signal: AbortSignal.timeout(this.config.aiTimeoutMs),
      });
    } catch (error) {
      this.logger.warn(`AI provider unreachable on ${path}: ${(error as Error).name}`);
      throw new AppError('ai_failed', 'The AI provider could not be reached');
    }
    const text = await response.text().catch(() => '');
    if (!response.ok) {
      this.logger.warn(`AI provider answered ${response.status} on ${path}`);
      throw new AppError('ai_failed', `The AI provider answered ${response.status}`);
    }
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new AppError('ai_failed', 'The AI provider answered with something that is not JSON');
    }
  }
}
