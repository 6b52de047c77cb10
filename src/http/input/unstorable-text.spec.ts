import { NUL_MESSAGE, SURROGATE_MESSAGE, unstorableText } from './unstorable-text';

describe('unstorableText: NUL and unpaired surrogates refused', () => {
  it.each([
    ['nothing', { a: 'b', n: 1, z: null, t: true }, null],
    ['undefined', undefined, null],
    ['a top-level field', { text: 'a\u0000b' }, 'text'],
    ['at the very end', { text: 'ab\u0000' }, 'text'],
    ['at the very start', { text: '\u0000' }, 'text'],
    [
      'a nested field',
      { targets: [{ channel_id: 'ok' }, { channel_id: 'x\u0000' }] },
      'targets.1.channel_id',
    ],
    ['an array item', { list: ['a', 'b\u0000'] }, 'list.1'],
    ['a key', { ['k\u0000']: 'v' }, 'k\u0000'],
    ['a nested key', { a: { ['\u0000']: 1 } }, 'a.\u0000'],
    ['the first in document order', { a: 'x\u0000', b: 'y\u0000' }, 'a'],
    ['a bare string', 'x\u0000', 'body'],
    ['a query array', { q: ['ok', 'n\u0000'] }, 'q.1'],
    ['other control characters are fine', { a: '\u0001\u001f\u007f' }, null],
  ])('%s', (_name, value, field) => {
    expect(unstorableText(value)).toEqual(field === null ? null : { field, message: NUL_MESSAGE });
  });

  it.each([
    ['a lone high surrogate', { email: '\ud800' }, 'email'],
    ['a lone low surrogate inside text', { text: 'a\udc00b' }, 'text'],
    ['a high surrogate at the end', { list: ['ok', 'x\ud83d'] }, 'list.1'],
    ['a key', { ['k\udfff']: 1 }, 'k\udfff'],
  ])('an unpaired surrogate: %s', (_name, value, field) => {
    expect(unstorableText(value)).toEqual({ field, message: SURROGATE_MESSAGE });
  });

  it('a paired surrogate (an emoji) is fine', () => {
    expect(unstorableText({ text: 'ok \ud83d\ude00', ['\ud83d\ude00']: 'z' })).toBeNull();
  });
});
