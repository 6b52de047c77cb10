import { bearerToken, formatApiKey, parseApiKey } from './api-key-format';

describe('API key format (D3)', () => {
  const publicId = 'AbCdEfGh12345678';
  const secret = 'S'.repeat(40);

  it('round-trips a key', () => {
    expect(parseApiKey(formatApiKey(publicId, secret))).toEqual({ publicId, secret });
    expect(formatApiKey(publicId, secret)).toBe(`hrld_live_${publicId}.${secret}`);
  });

  it.each([
    `hrld_test_${publicId}.${secret}`,
    `hrld_live_${publicId}`,
    `hrld_live_${publicId.slice(1)}.${secret}`,
    `hrld_live_${publicId}.${'S'.repeat(31)}`,
    `hrld_live_${publicId}.${secret}!`,
    `xhrld_live_${publicId}.${secret}`,
    `hrld_live_${publicId}.${secret}\n`,
    '',
  ])('refuses %p', (key) => expect(parseApiKey(key)).toBeNull());

  it('reads only the Bearer scheme', () => {
    expect(bearerToken('Bearer abc')).toBe('abc');
    expect(bearerToken('bearer abc')).toBe('abc');
    expect(bearerToken('Basic abc')).toBeNull();
    expect(bearerToken('Bearer a b')).toBeNull();
    expect(bearerToken(undefined)).toBeNull();
  });
});
