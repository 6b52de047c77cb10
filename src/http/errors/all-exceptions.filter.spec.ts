import { Logger } from '@nestjs/common';
import { toAppError } from './all-exceptions.filter';

/** toAppError logs only for the one who answers: a caller that rethrows passes no logger. */
describe('toAppError logging', () => {
  const outage = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), {
    code: 'ECONNREFUSED',
  });
  let error: jest.SpyInstance;
  let warn: jest.SpyInstance;

  beforeEach(() => {
    error = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });
  afterEach(() => jest.restoreAllMocks());

  it.each([
    ['an unknown error', new Error('boom'), 500, 'internal_error'],
    ['an outage', outage, 503, 'service_unavailable'],
  ])(
    '%s: the same answer, logged with a logger and silent without',
    (_name, thrown, status, code) => {
      const silent = toAppError(thrown);
      expect({ status: silent.status, code: silent.code }).toEqual({ status, code });
      expect(error.mock.calls.length + warn.mock.calls.length).toBe(0);
      const logged = toAppError(thrown, new Logger('Errors'), 'req-1');
      expect({ status: logged.status, code: logged.code }).toEqual({ status, code });
      expect(error.mock.calls.length + warn.mock.calls.length).toBe(1);
    },
  );
});
