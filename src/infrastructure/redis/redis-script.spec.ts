import Redis from 'ioredis';
import { createHash, randomBytes } from 'node:crypto';
import { RedisScript } from './redis-script';

describe('RedisScript (real Redis)', () => {
  let redis: Redis;

  beforeAll(async () => {
    redis = new Redis(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379');
    await redis.ping();
  });
  afterAll(async () => {
    await redis.quit();
  });

  it('sends its text once, when Redis does not know it, then runs by SHA1', async () => {
    // A comment no other run has used: this script is new to the server.
    const lua = `-- ${randomBytes(8).toString('hex')}\nreturn { KEYS[1], ARGV[1] + 1 }`;
    const sha = createHash('sha1').update(lua).digest('hex');
    const script = new RedisScript(lua, 1);
    expect(await redis.script('EXISTS', sha)).toEqual([0]);

    expect(await script.run(redis, ['a-key', 41])).toEqual(['a-key', 42]);
    expect(await redis.script('EXISTS', sha)).toEqual([1]);
    expect(await script.run(redis, ['b-key', 1])).toEqual(['b-key', 2]);
  });

  it('holds the scripts run in one turn of the event loop and sends them together after it', async () => {
    const script = new RedisScript(`return ARGV[1] * 2`, 0);
    const socket = redis.stream;

    const answers = [script.run(redis, [1]), script.run(redis, [2]), script.run(redis, [3])];
    // Still in this turn: all three commands wait in the socket's buffer, none has left alone.
    expect(socket.writableCorked).toBe(1);
    expect(socket.writableLength).toBeGreaterThan(0);

    expect(await Promise.all(answers)).toEqual([2, 4, 6]);
    expect(socket.writableCorked).toBe(0);
    expect(socket.writableLength).toBe(0);
  });

  it('holds nothing while the client is not connected, so its commands fail at once', async () => {
    const offline = new Redis(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379', {
      lazyConnect: true,
      enableOfflineQueue: false,
    });
    const script = new RedisScript(`return 1`, 0);
    await expect(script.run(offline, [])).rejects.toThrow(/Stream isn't writeable/);
    offline.disconnect();
  });

  it('passes on errors that are not NOSCRIPT', async () => {
    const script = new RedisScript(`return redis.error_reply('herald test failure')`, 0);
    await expect(script.run(redis, [])).rejects.toThrow('herald test failure');
  });
});
