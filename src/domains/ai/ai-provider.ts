export const AI_PROVIDER = Symbol('AI_PROVIDER');

export interface GeneratedImage {
  /** Its type comes from these bytes when stored, never from a name. */
  bytes: Buffer;
}

/** OpenAI-compatible (docs/api-rules.md#ai-generation); failures throw `ai_failed` (502). */
export interface AiProvider {
  generateText(instructions: string, prompt: string): Promise<string>;
  generateImage(prompt: string): Promise<GeneratedImage>;
}
