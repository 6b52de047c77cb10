import { splitText } from './thread-split';

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
const graphemeCount = (text: string) => [...graphemes.segment(text)].length;
const within = (max: number) => (text: string) => graphemeCount(text) <= max;

describe('splitText', () => {
  it('leaves a text that fits as it is', () => {
    expect(splitText(' short ', within(10), 25)).toEqual([' short ']);
  });

  it('cuts at the last paragraph break that fits, before a later sentence end', () => {
    const text = 'One para.\n\nTwo starts. Two ends here';
    expect(splitText(text, within(25), 25)).toEqual(['One para.', 'Two starts. Two ends here']);
  });

  it('cuts at the last sentence end that fits, else at the last space', () => {
    expect(splitText('First one. Second one goes on', within(20), 25)).toEqual([
      'First one.',
      'Second one goes on',
    ]);
    expect(splitText('aaa bbb ccc ddd', within(8), 25)).toEqual(['aaa bbb', 'ccc ddd']);
  });

  it('never cuts inside a word, a link or a grapheme', () => {
    const link = 'https://example.com/a/very/long/path';
    const parts = splitText(`see ${link} now`, within(40), 25)!;
    expect(parts).toEqual([`see ${link}`, 'now']);
    // A space carrying a combining mark is one grapheme with it: no cut there.
    const marked = splitText('abc \u0301def ghi', within(9), 25)!;
    expect(marked).toEqual(['abc \u0301def', 'ghi']);
    const family = '👨‍👩‍👧';
    expect(splitText(`${family} ${family} ${family}`, within(3), 25)).toEqual([
      `${family} ${family}`,
      family,
    ]);
  });

  it('fits the first part to its own limit where told (a caption)', () => {
    const fits = (part: string, index: number) => part.length <= (index === 0 ? 3 : 10);
    expect(splitText('aa bb cc dd', fits, 25)).toEqual(['aa', 'bb cc dd']);
  });

  it('gives up on a word longer than the limit, or on more parts than allowed', () => {
    expect(splitText('z'.repeat(30), within(10), 25)).toBeNull();
    expect(splitText('ab cd ef gh', within(2), 3)).toBeNull();
    expect(splitText('ab cd ef', within(2), 3)).toEqual(['ab', 'cd', 'ef']);
  });
});
