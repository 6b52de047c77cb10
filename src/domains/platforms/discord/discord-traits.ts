import type { PlatformTraits } from '../platform-traits';

/** Discord as data for the generic code (metrics, AI wording, log masking). */
export const DISCORD_TRAITS: PlatformTraits = {
  name: 'discord',
  displayName: 'Discord',
  aiAudience: 'Discord channels',
  callMetric: {
    name: 'herald_discord_request_duration_seconds',
    help: 'Discord REST API calls by method and outcome',
    // The calls Herald makes (GET /users/@me, GET /channels/{id}, POST /channels/{id}/messages).
    methods: ['getCurrentUser', 'getChannel', 'createMessage'],
  },
  // The bot token travels in the Authorization header, never in a path.
  logMasks: [],
};
