import { AppError } from './error-codes';
import { MAX_DB_ID, ParseIdPipe, parseId } from './parse-id.pipe';

describe('parseId: an id that is not one names nothing', () => {
  it.each([
    ['1', 1],
    ['9', 9],
    ['10', 10],
    ['42', 42],
    ['1000000000', 1_000_000_000],
    ['2147483646', 2_147_483_646],
    ['2147483647', 2_147_483_647],
  ])('reads the text %p as %p', (text, id) => expect(parseId(text)).toBe(id));

  it.each([
    [1, 1],
    [42, 42],
    [2_147_483_647, 2_147_483_647],
  ])('reads the number %p as %p', (value, id) => expect(parseId(value)).toBe(id));

  it('names the PostgreSQL integer ceiling', () => expect(MAX_DB_ID).toBe(2_147_483_647));

  it.each([
    '2147483648',
    '2147483650',
    '3000000000',
    '9999999999',
    '10000000000',
    '99999999999999999999',
    '0',
    '00',
    '01',
    '007',
    '02147483647',
    '-1',
    '-0',
    '+1',
    '1.0',
    '1.5',
    '1e3',
    '0x10',
    '1_000',
    '1,000',
    ' 1',
    '1 ',
    '\t1',
    '1\n',
    '',
    'abc',
    '1abc',
    'abc1',
    'Infinity',
    'NaN',
    '١',
  ])('refuses the text %p', (text) => expect(parseId(text)).toBeNull());

  it.each([
    [2_147_483_648],
    [0],
    [-1],
    [-0],
    [1.5],
    [1e21],
    [Number.NaN],
    [Number.POSITIVE_INFINITY],
    [null],
    [undefined],
    [true],
    [{}],
    [['1']],
    [BigInt(1)],
  ])('refuses the value %p', (value) => expect(parseId(value)).toBeNull());
});

describe('ParseIdPipe', () => {
  const pipe = new ParseIdPipe('post_not_found', 'Пост не найден');

  it('passes an id through as a number', () => {
    expect(pipe.transform('2147483647')).toBe(2_147_483_647);
    expect(pipe.transform('7')).toBe(7);
  });

  it.each(['2147483648', '0', '01', '-1', 'abc', ''])(
    'answers %p with the resource’s own not-found error',
    (value) => {
      let thrown: unknown;
      try {
        pipe.transform(value);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(AppError);
      expect((thrown as AppError).code).toBe('post_not_found');
      expect((thrown as AppError).message).toBe('Пост не найден');
    },
  );
});
