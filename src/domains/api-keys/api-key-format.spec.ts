import {
  API_KEY_MODES,
  API_KEY_PREFIX,
  apiKeyPrefix,
  bearerToken,
  formatApiKey,
  parseApiKey,
} from './api-key-format';

describe('API key format: hrld_<live|test>_<public>.<secret>', () => {
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

  it('names the prefix and both modes', () => {
    expect(API_KEY_PREFIX).toBe('hrld');
    expect(API_KEY_MODES).toEqual(['live', 'test']);
    expect(apiKeyPrefix('test', publicId)).toBe(`hrld_test_${publicId}`);
  });

  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  it.each([
    ['the shortest secret', `hrld_live_${publicId}.${'a'.repeat(32)}`, 'a'.repeat(32)],
    ['the longest secret', `hrld_test_${publicId}.${'Z'.repeat(128)}`, 'Z'.repeat(128)],
    ['every letter and digit', `hrld_live_${alphabet.slice(0, 16)}.${alphabet}`, alphabet],
    ['digits only', `hrld_live_${'0'.repeat(16)}.${'9'.repeat(40)}`, '9'.repeat(40)],
  ])('reads %s', (_label, key, keySecret) => {
    expect(parseApiKey(key)?.secret).toBe(keySecret);
    expect(parseApiKey(key)?.publicId).toBe(key.slice(10, 26));
    expect(parseApiKey(key)?.mode).toBe(key.slice(5, 9));
  });

  it.each([
    ['a 15-character public id', `hrld_live_${'A'.repeat(15)}.${secret}`],
    ['a 17-character public id', `hrld_live_${'A'.repeat(17)}.${secret}`],
    ['a 31-character secret', `hrld_live_${publicId}.${'a'.repeat(31)}`],
    ['a 129-character secret', `hrld_live_${publicId}.${'a'.repeat(129)}`],
    ['an empty secret', `hrld_live_${publicId}.`],
    ['an underscore in the public id', `hrld_live_AbCdEfGh1234567_.${secret}`],
    ['a dash in the public id', `hrld_live_AbCdEfGh1234567-.${secret}`],
    ['a non-ASCII letter in the public id', `hrld_live_AbCdEfGh1234567é.${secret}`],
    ['a space in the secret', `hrld_live_${publicId}.${'a'.repeat(20)} ${'a'.repeat(20)}`],
    ['an underscore in the secret', `hrld_live_${publicId}.${'a'.repeat(39)}_`],
    ['a dash in the secret', `hrld_live_${publicId}.${'a'.repeat(39)}-`],
    ['another separator', `hrld_live_${publicId}_${secret}`],
    ['two separators', `hrld_live_${publicId}.${secret}.${secret}`],
    ['an upper-case prefix', `HRLD_live_${publicId}.${secret}`],
    ['an upper-case mode', `hrld_LIVE_${publicId}.${secret}`],
    ['a leading space', ` hrld_live_${publicId}.${secret}`],
    ['a trailing space', `hrld_live_${publicId}.${secret} `],
    ['a prefix only', 'hrld_live_'],
  ])('refuses %s', (_label, key) => expect(parseApiKey(key)).toBeNull());

  it.each([
    ['Bearer abc', 'abc'],
    ['  Bearer abc  ', 'abc'],
    ['BEARER abc', 'abc'],
    [`Bearer hrld_live_${publicId}.${secret}`, `hrld_live_${publicId}.${secret}`],
  ])('reads the token of %p', (header, token) => expect(bearerToken(header)).toBe(token));

  it.each([
    '',
    'Bearer',
    'Bearer ',
    'Bearer  abc',
    'Bearer\tabc',
    'Bearerabc',
    'xBearer abc',
    'abc',
  ])('reads no token from %p', (header) => expect(bearerToken(header)).toBeNull());
});
