import { BLUESKY } from './bluesky/bluesky.descriptor';
import { DISCORD } from './discord/discord.descriptor';
import { MASTODON } from './mastodon/mastodon.descriptor';
import type { PlatformDescriptor } from './platform-descriptor';
import { TELEGRAM } from './telegram/telegram.descriptor';

/**
 * The platforms Herald publishes to, in the order the API documentation lists them: a new
 * platform is its folder (with its descriptor) and one line here. Nothing else outside a
 * platform's folder names one.
 */
const REGISTERED = [TELEGRAM, DISCORD, MASTODON, BLUESKY] as const;

export const PLATFORM_DESCRIPTORS: readonly PlatformDescriptor[] = REGISTERED;

type Registered = (typeof REGISTERED)[number];

/** A registered platform's name: the `platform` of its accounts, channels and targets. */
export type PlatformName = string;

/** The error codes the registered platforms declared (`<name>_rejected`, `<name>_unavailable`, …). */
export type PlatformErrorCode = Registered extends infer D
  ? D extends { errors: infer E }
    ? keyof E & string
    : never
  : never;

export const PLATFORM_NAMES: readonly PlatformName[] = PLATFORM_DESCRIPTORS.map((d) => d.name);

/** The platform of the API documentation's examples and of the demo seed: the first registered. */
export const EXAMPLE_PLATFORM: PlatformDescriptor = REGISTERED[0];

/** An example channel ref's parts: `{platform}:{account_id}:{channel_id}`. */
export const EXAMPLE_CHANNEL_ID = EXAMPLE_PLATFORM.examples.channelRef
  .split(':')
  .slice(2)
  .join(':');
