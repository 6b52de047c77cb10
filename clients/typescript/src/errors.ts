/**
 * Every failure of a call: an answer of Herald's (`status` and its `{ error: { code, message } }`)
 * or no answer at all (`status` 0, code `network_error` or `timeout`).
 */
export class HeraldError extends Error {
  override readonly name = 'HeraldError';

  constructor(
    /** The HTTP status; 0 when Herald gave no answer. */
    readonly status: number,
    /** Herald's error code, such as `validation_failed` or `rate_limit_exceeded`. */
    readonly code: string,
    message: string,
    /** Each problem of a refused body: `{ field, message, code?, channel_ref? }`. */
    readonly details: ReadonlyArray<HeraldErrorDetail> = [],
    /** Seconds to wait before trying again (`Retry-After`), when Herald said so. */
    readonly retryAfter: number | null = null,
  ) {
    super(message);
  }
}

export interface HeraldErrorDetail {
  field: string | null;
  message: string;
  code?: string;
  channel_ref?: string | null;
}
