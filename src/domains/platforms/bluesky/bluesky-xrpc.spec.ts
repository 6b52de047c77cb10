import { lexicons } from '@atproto/api';
import { XRPC_METHODS } from './bluesky-xrpc-methods';

describe("the lexicons of Herald's XRPC calls", () => {
  it.each(XRPC_METHODS)('%s is a method its client knows', (nsid) => {
    expect(['query', 'procedure']).toContain(lexicons.getDefOrThrow(nsid).type);
  });

  it('refreshSession takes no input, so the client sends it no body', () => {
    const def = lexicons.getDefOrThrow('com.atproto.server.refreshSession') as {
      type: string;
      input?: unknown;
    };
    expect(def.type).toBe('procedure');
    expect(def.input).toBeUndefined();
  });
});
