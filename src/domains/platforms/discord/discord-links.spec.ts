import { DISCORD_LIMITS, discordChannelUrl, discordMessageUrl } from './discord-links';

describe('Discord links', () => {
  it("links a channel by its server and id, and a message under its channel's link", () => {
    const url = discordChannelUrl('81384788765712384', '381870553235193857');
    expect(url).toBe('https://discord.com/channels/81384788765712384/381870553235193857');
    const channel = { channelId: '381870553235193857', username: null, url };
    expect(discordMessageUrl(channel, '1180000000000000000')).toBe(`${url}/1180000000000000000`);
  });

  it('gives no message link for a channel stored without one', () => {
    expect(discordMessageUrl({ channelId: '1', username: null, url: null }, '2')).toBeNull();
    expect(discordMessageUrl({ channelId: '1', username: null }, '2')).toBeNull();
  });

  it('states the limits Herald enforces', () => {
    expect(DISCORD_LIMITS).toEqual({
      text_max: 2000,
      text_unit: 'utf16',
      media_max: 10,
      media_kinds: ['image', 'video'],
      media_max_bytes: { image: 10_485_760, video: 10_485_760 },
    });
  });
});
