import type { OutgoingMedia } from '../platform';
import { DiscordPublisher } from './discord-publisher';

const medium = (name: string, type: 'image' | 'video' = 'image'): OutgoingMedia => ({
  type,
  mimeType: type === 'image' ? 'image/png' : 'video/mp4',
  filename: name,
  altText: null,
  storagePath: `projects/1/2026/11/${name}`,
  sizeBytes: 10,
});

describe('DiscordPublisher.plan', () => {
  const plan = (text: string, media: OutgoingMedia[]) =>
    DiscordPublisher.prototype.plan.call({}, text, media);

  it('text alone is one message', () => {
    expect(plan('hi', [])).toEqual([{ kind: 'text', text: 'hi', media: [], cost: 1 }]);
  });

  it('up to ten media are one message with the text, counted as one', () => {
    const media = Array.from({ length: 10 }, (_, i) => medium(`${i}.png`));
    expect(plan('hi', media)).toEqual([{ kind: 'single', text: 'hi', media, cost: 1 }]);
    const mixed = [medium('a.png'), medium('b.mp4', 'video')];
    expect(plan('hi', mixed)).toEqual([{ kind: 'single', text: 'hi', media: mixed, cost: 1 }]);
  });

  it('media without text carry no content', () => {
    expect(plan('  ', [medium('a.png')])[0].text).toBeNull();
    expect(plan('', [medium('a.png')])[0].text).toBeNull();
  });
});
