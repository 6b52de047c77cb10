import { stepTid } from './step-keys';

describe('stepTid', () => {
  it('keeps the target TID for the first step and orders the later ones after it', () => {
    const tid = '3lbxyzabcde2j';
    const keys = [0, 1, 2, 31, 32, 24].map((step) => stepTid(tid, step));
    expect(keys[0]).toBe(tid);
    expect(keys[1]).toBe('3lbxyzabcde2k');
    expect(keys[4]).toBe('3lbxyzabcde3j');
    expect(new Set(keys).size).toBe(keys.length);
    for (const key of keys) expect(key).toMatch(/^[234567abcdefghij][234567a-z]{12}$/);
    expect([...keys.slice(0, 5)].sort()).toEqual(keys.slice(0, 5));
  });
});
