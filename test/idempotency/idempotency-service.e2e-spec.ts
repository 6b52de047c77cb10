import { AppError } from '../../src/http/errors/error-codes';
import {
  EMPTY_BODY_SHA256,
  IdempotencyService,
  requestFingerprint,
} from '../../src/http/idempotency/idempotency.service';
import { startTestApp, TestApp } from '../support/test-app';

const CREATE = requestFingerprint('POST', '/api/public/v1/projects/1/posts', EMPTY_BODY_SHA256);
const PUBLISH = requestFingerprint(
  'POST',
  '/api/public/v1/projects/1/posts/7/publish',
  EMPTY_BODY_SHA256,
);

/** The error `begin` throws, as `{ status, code }`; fails the test when it answers instead. */
async function refusal(answer: Promise<unknown>): Promise<{ status: number; code: string }> {
  const error = await answer.then(
    (outcome) => {
      throw new Error(`answered ${JSON.stringify(outcome)}`);
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  const { status, code } = error as AppError;
  return { status, code };
}

/**
 * The idempotency service on its own (docs/api-rules.md#idempotency-keys), through its own methods
 * on the real database; the HTTP side (headers, order of checks) is in
 * test/posts/idempotency.e2e-spec.ts. Keys belong to an API key id: each test takes its own.
 */
describe('IdempotencyService', () => {
  let t: TestApp;
  let service: IdempotencyService;
  let apiKeyId = 0;

  beforeAll(async () => {
    t = await startTestApp();
    service = t.app.get(IdempotencyService);
  });
  afterAll(() => t?.close());
  beforeEach(() => {
    apiKeyId++;
  });

  it('replays a finished request: its status and body, instead of running it again', async () => {
    expect(await service.begin(apiKeyId, 'k-1', CREATE)).toEqual({ kind: 'run' });
    await service.finish(apiKeyId, 'k-1', CREATE, 201, { id: 42, status: 'draft' });

    expect(await service.begin(apiKeyId, 'k-1', CREATE)).toEqual({
      kind: 'replay',
      status: 201,
      body: { id: 42, status: 'draft' },
    });
  });

  it('keeps a 4xx answer too, and replays it', async () => {
    await service.begin(apiKeyId, 'k-4xx', CREATE);
    const body = { error: { code: 'validation_failed', message: 'text must be a string' } };
    await service.finish(apiKeyId, 'k-4xx', CREATE, 400, body);

    expect(await service.begin(apiKeyId, 'k-4xx', CREATE)).toEqual({
      kind: 'replay',
      status: 400,
      body,
    });
  });

  it('refuses the same key for another request: 422 idempotency_key_reused', async () => {
    await service.begin(apiKeyId, 'k-2', CREATE);
    await service.finish(apiKeyId, 'k-2', CREATE, 201, { id: 1 });

    expect(await refusal(service.begin(apiKeyId, 'k-2', PUBLISH))).toEqual({
      status: 422,
      code: 'idempotency_key_reused',
    });
  });

  it('refuses a key whose request still runs: 409 idempotency_key_in_use', async () => {
    await service.begin(apiKeyId, 'k-3', CREATE);

    expect(await refusal(service.begin(apiKeyId, 'k-3', CREATE))).toEqual({
      status: 409,
      code: 'idempotency_key_in_use',
    });
    // Another request under that key is a reuse, running or not.
    expect(await refusal(service.begin(apiKeyId, 'k-3', PUBLISH))).toEqual({
      status: 422,
      code: 'idempotency_key_reused',
    });
  });

  it('frees a released key (a 5xx): the retry runs anew', async () => {
    await service.begin(apiKeyId, 'k-5xx', CREATE);
    await service.release(apiKeyId, 'k-5xx', CREATE);

    expect(await service.begin(apiKeyId, 'k-5xx', CREATE)).toEqual({ kind: 'run' });
  });

  it('scopes a key to its API key: another API key may use the same one', async () => {
    await service.begin(apiKeyId, 'k-shared', CREATE);

    expect(await service.begin(apiKeyId + 1_000_000, 'k-shared', PUBLISH)).toEqual({
      kind: 'run',
    });
  });

  it('forgets an expired key at once, for any request, and the purge removes it', async () => {
    await service.begin(apiKeyId, 'k-old', CREATE);
    await service.finish(apiKeyId, 'k-old', CREATE, 201, { id: 9 });
    await service.begin(apiKeyId, 'k-live', CREATE);
    // The 24 hours pass.
    await t.db.query(
      `UPDATE idempotency_keys SET expires_at = now() - interval '1 second'
        WHERE api_key_id = $1 AND key = 'k-old'`,
      [apiKeyId],
    );

    expect(await service.begin(apiKeyId, 'k-old', PUBLISH)).toEqual({ kind: 'run' });
    expect(await refusal(service.begin(apiKeyId, 'k-live', CREATE))).toEqual({
      status: 409,
      code: 'idempotency_key_in_use',
    });

    await t.db.query(
      `UPDATE idempotency_keys SET expires_at = now() - interval '1 second'
        WHERE api_key_id = $1`,
      [apiKeyId],
    );
    expect(await service.purgeExpired()).toBe(2);
    const { rows } = await t.db.query('SELECT key FROM idempotency_keys WHERE api_key_id = $1', [
      apiKeyId,
    ]);
    expect(rows).toEqual([]);
  });
});
