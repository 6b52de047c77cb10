import { BLUESKY_TRAITS } from './bluesky/bluesky-traits';
import { DISCORD_TRAITS } from './discord/discord-traits';
import { MASTODON_TRAITS } from './mastodon/mastodon-traits';
import type { PlatformTraits } from './platform-traits';
import { TELEGRAM_TRAITS } from './telegram/telegram-traits';

/**
 * The registered platforms' traits, beside their Nest registration in platforms.module.ts: a plain
 * list, free of Nest and config, so that code running at module load can read it.
 */
export const PLATFORM_TRAITS: readonly PlatformTraits[] = [
  TELEGRAM_TRAITS,
  DISCORD_TRAITS,
  MASTODON_TRAITS,
  BLUESKY_TRAITS,
];
