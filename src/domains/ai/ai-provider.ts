/** Token under which the configured AiProvider is injected. */
export const AI_PROVIDER = Symbol('AI_PROVIDER');

export interface GeneratedImage {
  /**
   * The picture as the provider sent it; its type comes from these bytes when stored, never from a
   * name.
   */
  bytes: Buffer;
}

/**
 * A text and image generator for posts, templates and media (docs/api-rules.md#ai-generation). The
 * real one speaks the OpenAI HTTP API; any compatible provider works. Failures are thrown as
 * AppError `ai_failed` (502).
 */
export interface AiProvider {
  generateText(instructions: string, prompt: string): Promise<string>;
  generateImage(prompt: string): Promise<GeneratedImage>;
}
