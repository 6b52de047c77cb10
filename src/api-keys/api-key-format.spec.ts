import { bearerToken, formatApiKey, parseApiKey } from './api-key-format';

describe('API key format (D3, D22)', () => {
  const publicId = 'AbCdEfGh12345678';
  const secret = 'S'.repeat(40);

  it.each(['live', 'test'] as const)('round-trips a %s key', (mode) => {
    expect(parseApiKey(formatApiKey(mode, publicId, secret))).toEqual({ mode, publicId, secret });
    expect(formatApiKey(mode, publicId, secret)).toBe(`hrld_${mode}_${publicId}.${secret}`);
  });

  it.each([
    `hrld_demo_${publicId}.${secret}`,
    `hrld_${publicId}.${secret}`,
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
