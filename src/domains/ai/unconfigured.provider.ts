import { AppError } from '../../http/errors/error-codes';
import type { AiProvider, GeneratedImage } from './ai-provider';

/** Stands in when AI_API_BASE_URL is not set: every call answers 503 ai_unavailable. */
export class UnconfiguredAiProvider implements AiProvider {
  generateText(): Promise<string> {
    return Promise.reject(unavailable());
  }

  generateImage(): Promise<GeneratedImage> {
    return Promise.reject(unavailable());
  }
}

function unavailable(): AppError {
  return new AppError('ai_unavailable', 'AI generation is not configured on this server');
}
