import { usageReport, classify, GraphApiError, limitWaitMs } from './graph-errors';

describe('Graph API errors', () => {
  it.each([
    [400, { code: 190, error_subcode: 463 }, 'token'],
    [400, { code: 102 }, 'token'],
    [400, { code: 4, is_transient: true }, 'limit'],
    [400, { code: 17 }, 'limit'],
    [400, { code: 32 }, 'limit'],
    [400, { code: 613 }, 'limit'],
    [400, { code: 80001 }, 'limit'],
    [400, { code: 80014 }, 'limit'],
    [400, { code: 341 }, 'limit'],
    [400, { code: 368 }, 'limit'],
    [500, { code: 1 }, 'transient'],
    [400, { code: 2 }, 'transient'],
    [503, {}, 'transient'],
    [400, { code: 100, is_transient: true }, 'transient'],
    [400, { code: 100, error_subcode: 2207052 }, 'transient'],
    [400, { code: -2, error_subcode: 2207003 }, 'transient'],
    [400, { code: 100 }, 'refused'],
    [400, { code: 80015 }, 'refused'],
    [403, { code: 10 }, 'refused'],
  ] as const)('HTTP %s with %j is %s', (status, error, kind) => {
    expect(classify(status, error)).toBe(kind);
  });

  it("keeps Meta's message with its code and subcode", () => {
    const error = new GraphApiError(400, {
      error: {
        message: 'Invalid parameter',
        type: 'OAuthException',
        code: 100,
        error_subcode: 33,
        fbtrace_id: 'Ax',
      },
    });
    expect(error.reason).toBe('Invalid parameter (code 100, subcode 33)');
    expect(error.kind).toBe('refused');
  });

  it('waits as long as X-Business-Use-Case-Usage says, else the default for the kind of limit', () => {
    const usage = JSON.stringify({
      '123': [{ type: 'pages', call_count: 100, estimated_time_to_regain_access: 7 }],
      '456': [{ type: 'pages', call_count: 20, estimated_time_to_regain_access: 2 }],
    });
    expect(limitWaitMs({ code: 80002 }, { 'x-business-use-case-usage': usage })).toBe(7 * 60_000);
    expect(limitWaitMs({ code: 4 }, { 'x-app-usage': '{"call_count":100}' })).toBe(5 * 60_000);
    expect(limitWaitMs({ code: 368 }, {})).toBe(15 * 60_000);
    expect(limitWaitMs({ code: 4 }, { 'x-business-use-case-usage': 'not json' })).toBe(5 * 60_000);
  });

  it("reads Meta's usage headers back as a spent budget only once a usage is at 100% or names a wait", () => {
    const business = (callCount: number, minutes: number) => ({
      'x-business-use-case-usage': JSON.stringify({
        '108': [
          {
            type: 'pages',
            call_count: callCount,
            total_time: 5,
            estimated_time_to_regain_access: minutes,
          },
        ],
      }),
    });
    expect(usageReport(business(40, 0))).toBeNull();
    expect(usageReport(business(100, 0))).toEqual({
      window: 'account',
      remaining: 0,
      resetAfterMs: 60_000,
    });
    expect(usageReport(business(80, 4))).toEqual({
      window: 'account',
      remaining: 0,
      resetAfterMs: 240_000,
    });
    expect(
      usageReport({ 'x-app-usage': '{"call_count":12,"total_time":100,"total_cputime":3}' }),
    ).toEqual({ window: 'account', remaining: 0, resetAfterMs: 60_000 });
    expect(usageReport({ 'x-app-usage': '{"call_count":99}' })).toBeNull();
    expect(usageReport({ 'x-app-usage': 'not json' })).toBeNull();
    expect(usageReport({})).toBeNull();
  });

  it('an answer without an error object is refused with its status', () => {
    const error = new GraphApiError(404, 'Not Found');
    expect(error.kind).toBe('refused');
    expect(error.reason).toBe('HTTP 404');
  });
});
