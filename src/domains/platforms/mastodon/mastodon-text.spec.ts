import { mastodonTextLength } from './mastodon-text';

describe('mastodonTextLength (as a Mastodon instance counts a status)', () => {
  const link = `https://example.com/${'a'.repeat(80)}`;

  it.each([
    ['plain ASCII', 'hello', 5],
    ['an empty text', '', 0],
    ['whitespace alone', ' \n\t ', 0],
    ['an emoji of two UTF-16 units', '😀', 1],
    ['a family emoji joined with ZWJ', '👨‍👩‍👧‍👦', 1],
    ['a flag (two regional indicators)', '🇫🇷', 1],
    ['a skin-toned thumbs-up', '👍🏽', 1],
    ['e and a combining accent', 'e\u0301', 1],
    ['Hangul syllables from jamo', '\u1100\u1161\u11A8', 1],
    ['a long link', link, 23],
    ['a short link is still 23', 'http://a.co', 23],
    ['a link in a sentence, its full stop counted apart', `See ${link}.`, 4 + 23 + 1],
    ['two links', `${link} ${link}`, 23 + 1 + 23],
    ['a link in parentheses', `(${link})`, 1 + 23 + 1],
    ['a link whose path closes its own bracket', 'https://en.wikipedia.org/wiki/Bee_(band)', 23],
    ['a link with a query and fragment', 'https://example.com/?q=1&r=2#top', 23],
    ['not a link without a scheme', 'example.com/page', 16],
    ['not a link without a dot in the host', 'http://localhost/x', 18],
    ['not a link glued to a word', 'xhttps://example.com', 20],
    ['a link after a letter outside ASCII', 'éhttps://example.com', 1 + 23],
    ['a link with a port', 'https://example.com:8443/path', 23],
    ['a link ending a line, then more text', `${link}\nnext`, 23 + 1 + 4],
    ['a remote mention counts its local part', 'hi @alice@social.example.org', 3 + 6],
    ['a local mention counts in full', 'hi @alice', 9],
    ['emoji around a link', `😀${link}😀`, 1 + 23 + 1],
  ])('%s', (_what, text, length) => {
    expect(mastodonTextLength(text)).toBe(length);
  });

  it("counts each link as the instance's characters_reserved_per_url", () => {
    expect(mastodonTextLength(`go ${link}`, 30)).toBe(3 + 30);
    expect(mastodonTextLength('go http://a.co', 5)).toBe(3 + 5);
  });

  it('has its boundary exactly at the counted length, links included', () => {
    const text = `${'é'.repeat(476)} ${link}`;
    expect(mastodonTextLength(text)).toBe(500);
    expect(mastodonTextLength(`${text}!`)).toBe(501);
    expect(mastodonTextLength('🇫🇷'.repeat(500))).toBe(500);
    expect(mastodonTextLength('🇫🇷'.repeat(501))).toBe(501);
  });
});
