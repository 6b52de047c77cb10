import { jsonDepthExceeds, MAX_JSON_DEPTH } from './json-depth';

const objects = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);
const arrays = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);

describe('jsonDepthExceeds: 32 levels, no recursion', () => {
  it.each([
    ['a scalar', '1', 0, false],
    ['an empty object at 1', '{}', 1, false],
    ['an empty object at 0', '{}', 0, true],
    ['32 objects', objects(32), 32, false],
    ['33 objects', objects(33), 32, true],
    ['32 arrays', arrays(32), 32, false],
    ['33 arrays', arrays(33), 32, true],
    ['mixed, 33', '[{"a":'.repeat(16) + '[1]' + '}]'.repeat(16), 32, true],
    ['mixed, 32', '[{"a":'.repeat(16) + '1' + '}]'.repeat(16), 32, false],
    ['siblings do not add up', '[' + '[],'.repeat(100) + '[]]', 2, false],
    ['brackets in a string', `{"a":"${'[{'.repeat(100)}"}`, 1, false],
    ['an escaped quote keeps the string open', `{"a":"\\"[[[[["}`, 1, false],
    ['an escaped backslash closes it', `{"a":"\\\\","b":[[[]]]}`, 3, true],
    ['an escaped backslash, within limit', `{"a":"\\\\","b":[[[]]]}`, 4, false],
    ['stray closers bank no depth', ']]]][[', 1, true],
    ['10,000 levels without a stack overflow', arrays(10_000), MAX_JSON_DEPTH, true],
  ])('%s', (_name, text, max, exceeds) => {
    expect(jsonDepthExceeds(text, max)).toBe(exceeds);
  });
});
