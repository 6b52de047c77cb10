import { createHmac } from 'node:crypto';
import { decodeCursor, encodeCursor } from './post-cursor';

// A stand-in signature: the real one is SecretsService.signToken, whose verification is tested
// end to end (test/posts/posts-api.e2e-spec.ts).
const sign = (data: string) => `${data}|${createHmac('sha256', 'k').update(data).digest('hex')}`;
const verify = (token: string) => {
  const [data, mac] = token.split('|');
  return sign(data) === `${data}|${mac}` ? data : null;
};

describe('post list cursor: signed, bound to its project and filter', () => {
  const key = { createdAt: '2026-11-23 02:50:56.123456+00', id: 42 };
  const scope = { projectId: 7, status: null };

  it('round-trips the key for the scope it was made for', () => {
    expect(decodeCursor(verify(encodeCursor(sign, scope, key)), scope)).toEqual(key);
    const drafts = { projectId: 7, status: 'draft' as const };
    expect(decodeCursor(verify(encodeCursor(sign, drafts, key)), drafts)).toEqual(key);
  });

  it('refuses a cursor of another project or another status filter', () => {
    const cursor = verify(encodeCursor(sign, scope, key));
    expect(decodeCursor(cursor, { projectId: 8, status: null })).toBeNull();
    expect(decodeCursor(cursor, { projectId: 7, status: 'draft' })).toBeNull();
  });

  it('refuses what does not verify or is not a cursor', () => {
    expect(decodeCursor(null, scope)).toBeNull();
    expect(decodeCursor('not json', scope)).toBeNull();
    expect(decodeCursor('[2,7,null,"z",1]', scope)).toBeNull();
    expect(decodeCursor('[1,7,null,"z","1"]', scope)).toBeNull();
    expect(decodeCursor('{"a":1}', scope)).toBeNull();
  });
});
