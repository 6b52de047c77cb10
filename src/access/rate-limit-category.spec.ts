import { ConfigError, loadConfig } from '../infrastructure/config/config';
import { categoryLimits, RATE_LIMIT_CATEGORIES } from './rate-limit-category';

const base = { DATABASE_URL: 'postgres://u@127.0.0.1/db', APP_SECRET: 'z'.repeat(32) };

describe('rate-limit configuration', () => {
  it('defaults to the spec: upload, create post and publish 10, other 30, per 60 s window, on', () => {
    const { rateLimits } = loadConfig(base);
    expect(categoryLimits(rateLimits)).toEqual({
      upload: 10,
      create_post: 10,
      publish: 10,
      other: 30,
    });
    expect(rateLimits).toMatchObject({ windowMs: 60_000, authFailuresPerIp: 60, enabled: true });
    expect(Object.keys(categoryLimits(rateLimits)).sort()).toEqual(
      [...RATE_LIMIT_CATEGORIES].sort(),
    );
  });

  it('reads every limit from its variable', () => {
    const { rateLimits } = loadConfig({
      ...base,
      RATE_LIMIT_UPLOAD: '1',
      RATE_LIMIT_CREATE_POST: '2',
      RATE_LIMIT_PUBLISH: '3',
      RATE_LIMIT_OTHER: '4',
      RATE_LIMIT_ENABLED: 'false',
    });
    expect(categoryLimits(rateLimits)).toEqual({ upload: 1, create_post: 2, publish: 3, other: 4 });
    expect(rateLimits.enabled).toBe(false);
  });

  it.each([
    ['RATE_LIMIT_ENABLED', 'maybe'],
    ['RATE_LIMIT_OTHER', '0'],
    ['RATE_LIMIT_WINDOW_MS', '10'],
  ])('refuses %s=%s with a message naming the variable', (name, value) => {
    expect(() => loadConfig({ ...base, [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ ...base, [name]: value })).toThrow(name);
  });
});
