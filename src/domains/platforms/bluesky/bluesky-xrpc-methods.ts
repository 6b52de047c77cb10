/** The XRPC methods Herald calls; the metric counts anything else as `other` (bounded labels). */
export const XRPC_METHODS = [
  'com.atproto.server.createSession',
  'com.atproto.server.refreshSession',
  'com.atproto.repo.uploadBlob',
  'com.atproto.repo.createRecord',
  'com.atproto.repo.getRecord',
  'com.atproto.identity.resolveHandle',
] as const;
