import { BLUESKY } from './bluesky/bluesky.descriptor';
import { DISCORD } from './discord/discord.descriptor';
import { FACEBOOK } from './facebook/facebook.descriptor';
import { INSTAGRAM } from './instagram/instagram.descriptor';
import { LINKEDIN } from './linkedin/linkedin.descriptor';
import { MASTODON } from './mastodon/mastodon.descriptor';
import type { PlatformDescriptor } from './platform-descriptor';
import { TELEGRAM } from './telegram/telegram.descriptor';
import { THREADS } from './threads/threads.descriptor';
import { X } from './x/x.descriptor';

/** In the documentation's order; a new platform is its folder and one line here. */
const REGISTERED = [
  TELEGRAM,
  DISCORD,
  MASTODON,
  BLUESKY,
  FACEBOOK,
  INSTAGRAM,
  THREADS,
  LINKEDIN,
  X,
] as const;

/** A platform connected through another's login (its app, settings and client) may name that one. */
export const BUILT_ON: Readonly<Record<string, readonly string[]>> = {
  [INSTAGRAM.name]: [FACEBOOK.name],
};

export const PLATFORM_DESCRIPTORS: readonly PlatformDescriptor[] = REGISTERED;

type Registered = (typeof REGISTERED)[number];

export type PlatformName = string;

export type PlatformErrorCode = Registered extends infer D
  ? D extends { errors: infer E }
    ? keyof E & string
    : never
  : never;

/** Every way a platform counts text: UTF-16 code units, graphemes, and the platforms' own. */
export const TEXT_UNITS: readonly { name: string; description: string }[] = [
  { name: 'utf16', description: 'UTF-16 code units' },
  { name: 'graphemes', description: 'characters as people see them (graphemes)' },
  ...PLATFORM_DESCRIPTORS.flatMap((d) => (d.textUnit ? [d.textUnit] : [])),
];

export const PLATFORM_NAMES: readonly PlatformName[] = PLATFORM_DESCRIPTORS.map((d) => d.name);

/** The first registered: the documentation's examples and the demo seed use it. */
export const EXAMPLE_PLATFORM: PlatformDescriptor = REGISTERED[0];

export const EXAMPLE_CHANNEL_ID = EXAMPLE_PLATFORM.examples.channelRef
  .split(':')
  .slice(2)
  .join(':');
