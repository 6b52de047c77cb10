import { threadsLinks, threadsTextLength } from './threads-limits';

describe('Threads text measure', () => {
  it.each([
    ['plain letters', 'Hello', 5],
    ['an accented letter, one character', 'cafe\u0301', 4],
    ['a thumbs up: its 4 UTF-8 bytes', '👍', 4],
    ['a thumbs up with a skin tone: 8 bytes', '👍🏽', 8],
    ['a family of four: 25 bytes', '👨‍👩‍👧‍👦', 25],
    ['a flag: 8 bytes', '🇫🇷', 8],
    ['a letter of another script, one character', 'Ж', 1],
    ['text and emoji', 'Hi 👋', 7],
  ])('%s', (_what, text, length) => {
    expect(threadsTextLength(text)).toBe(length);
  });
});

describe('Threads links', () => {
  it('counts each different link once, http(s) or www., without trailing punctuation', () => {
    expect(
      threadsLinks(
        'See https://example.com/a, www.example.com/b and HTTPS://EXAMPLE.com/a. Also http://www.example.com/b!',
      ),
    ).toEqual(['example.com/a', 'www.example.com/b']);
  });

  it('finds none in plain text or a bare domain', () => {
    expect(threadsLinks('no links here, example.com is a name')).toEqual([]);
  });
});
