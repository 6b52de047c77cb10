import type { AppConfig } from '../../../infrastructure/config/config';
import { UrlOf } from '../../../infrastructure/config/variable-rules';

/** Bluesky's environment variables, their defaults and rules. */
export class BlueskyVariables {
  @UrlOf(['http:', 'https:'])
  BLUESKY_SERVICE_URL = 'https://bsky.social';
}

export interface BlueskySettings {
  /** The service an account signs in to when it names none (the operator's, never checked). */
  serviceUrl: string;
}

export function readBlueskySettings(v: BlueskyVariables): BlueskySettings {
  return { serviceUrl: v.BLUESKY_SERVICE_URL.replace(/\/+$/, '') };
}

export function blueskySettings(config: AppConfig): BlueskySettings {
  return config.platforms.bluesky as BlueskySettings;
}
