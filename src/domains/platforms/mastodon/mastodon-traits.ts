import type { PlatformTraits } from '../platform-traits';

/** Mastodon as data for the generic code (metrics, AI wording, log masking). */
export const MASTODON_TRAITS: PlatformTraits = {
  name: 'mastodon',
  displayName: 'Mastodon',
  aiAudience: 'Mastodon accounts',
  callMetric: {
    name: 'herald_mastodon_request_duration_seconds',
    help: 'Mastodon API calls by method and outcome',
    // The API calls Herald makes; anything else is counted as `other` (bounded labels).
    methods: ['verify_credentials', 'instance', 'upload_media', 'get_media', 'post_status'],
  },
  // The access token travels in the Authorization header, never in a path.
  logMasks: [],
};
