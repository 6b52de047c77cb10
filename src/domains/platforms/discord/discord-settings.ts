import type { AppConfig } from '../../../infrastructure/config/config';
import { UrlOf } from '../../../infrastructure/config/variable-rules';

/** Discord's environment variables, their defaults and rules. */
export class DiscordVariables {
  @UrlOf(['http:', 'https:'])
  DISCORD_API_BASE_URL = 'https://discord.com/api/v10';
}

export interface DiscordSettings {
  /** Discord's REST API, version included (the operator's, never checked as an outbound address). */
  apiBaseUrl: string;
}

export function readDiscordSettings(v: DiscordVariables): DiscordSettings {
  return { apiBaseUrl: v.DISCORD_API_BASE_URL.replace(/\/+$/, '') };
}

export function discordSettings(config: AppConfig): DiscordSettings {
  return config.platforms.discord as DiscordSettings;
}
