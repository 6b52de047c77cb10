import type { PlatformTraits } from '../platform-traits';
import { XRPC_METHODS } from './bluesky-xrpc-methods';

/** Bluesky as data for the generic code (metrics, AI wording, log masking). */
export const BLUESKY_TRAITS: PlatformTraits = {
  name: 'bluesky',
  displayName: 'Bluesky',
  aiAudience: 'Bluesky posts (at most 300 characters)',
  callMetric: {
    name: 'herald_bluesky_request_duration_seconds',
    help: 'Bluesky XRPC calls by method and outcome',
    methods: XRPC_METHODS,
  },
  // Tokens travel in headers, never in paths.
  logMasks: [],
};
