import type { Dispatcher } from 'undici';
import type { RateLimitReport } from '../rate-limit-report';

export interface GraphErrorBody {
  message?: string;
  type?: string;
  code?: number;
  error_subcode?: number;
  is_transient?: boolean;
  error_user_title?: string;
  error_user_msg?: string;
  fbtrace_id?: string;
}

/** `token`: reconnect; `limit`: waited out, never a failure; `refused`: for good. */
export type GraphErrorClass = 'token' | 'limit' | 'transient' | 'refused';

const DEAD_TOKEN_CODES = new Set([102, 190]);
const RATE_LIMIT_CODES = new Set([4, 17, 32, 613]);
const BUSINESS_USE_CASE_LIMITS = { from: 80001, to: 80014 };
const TEMPORARY_BLOCK_CODES = new Set([341, 368]);
const TRANSIENT_CODES = new Set([1, 2]);
/** Meta could not download the media this time (timed out, failed): nothing was published. */
const MEDIA_FETCH_SUBCODES = new Set([2207003, 2207052]);

export const DEFAULT_LIMIT_WAIT_MS = 5 * 60_000;
export const DEFAULT_BLOCK_WAIT_MS = 15 * 60_000;

export class GraphApiError extends Error {
  readonly error: GraphErrorBody;
  readonly kind: GraphErrorClass;
  readonly waitMs: number | null;

  constructor(
    readonly status: number,
    body: unknown,
    headers: Dispatcher.ResponseData['headers'] = {},
  ) {
    const error = errorOf(body);
    super(describe(status, error));
    this.error = error;
    this.kind = classify(status, error);
    this.waitMs = this.kind === 'limit' ? limitWaitMs(error, headers) : null;
  }

  get reason(): string {
    return describe(this.status, this.error);
  }
}

/** `sent` false: it never reached Meta; true: Meta may have acted on it. */
export class GraphTransportError extends Error {
  constructor(
    message: string,
    readonly sent: boolean,
  ) {
    super(message);
  }
}

export function classify(status: number, error: GraphErrorBody): GraphErrorClass {
  const code = error.code;
  if (code !== undefined && DEAD_TOKEN_CODES.has(code)) return 'token';
  if (code !== undefined && isRateLimit(code)) return 'limit';
  if (code !== undefined && TEMPORARY_BLOCK_CODES.has(code)) return 'limit';
  if (error.is_transient === true || status >= 500) return 'transient';
  if (code !== undefined && TRANSIENT_CODES.has(code)) return 'transient';
  if (error.error_subcode !== undefined && MEDIA_FETCH_SUBCODES.has(error.error_subcode))
    return 'transient';
  return 'refused';
}

export function isRateLimit(code: number): boolean {
  return (
    RATE_LIMIT_CODES.has(code) ||
    (code >= BUSINESS_USE_CASE_LIMITS.from && code <= BUSINESS_USE_CASE_LIMITS.to)
  );
}

function errorOf(body: unknown): GraphErrorBody {
  const error = (body as { error?: unknown } | null | undefined)?.error;
  if (typeof error !== 'object' || error === null) return {};
  const e = error as Record<string, unknown>;
  const read: GraphErrorBody = {};
  if (typeof e.message === 'string') read.message = e.message;
  if (typeof e.type === 'string') read.type = e.type;
  if (typeof e.code === 'number') read.code = e.code;
  if (typeof e.error_subcode === 'number') read.error_subcode = e.error_subcode;
  if (typeof e.is_transient === 'boolean') read.is_transient = e.is_transient;
  if (typeof e.error_user_msg === 'string') read.error_user_msg = e.error_user_msg;
  if (typeof e.fbtrace_id === 'string') read.fbtrace_id = e.fbtrace_id;
  return read;
}

function describe(status: number, error: GraphErrorBody): string {
  const message = error.error_user_msg ?? error.message ?? `HTTP ${status}`;
  if (error.code === undefined) return message;
  const subcode = error.error_subcode === undefined ? '' : `, subcode ${error.error_subcode}`;
  return `${message} (code ${error.code}${subcode})`;
}

/** Meta's usage headers: a budget spent once a usage reaches 100% (docs/performance.md#pacing). */
export function usageReport(headers: Dispatcher.ResponseData['headers']): RateLimitReport | null {
  const minutes = regainMinutes(header(headers, 'x-business-use-case-usage'));
  const percent = Math.max(
    usedPercent(header(headers, 'x-app-usage')),
    usedPercent(header(headers, 'x-business-use-case-usage')),
  );
  if (minutes <= 0 && percent < 100) return null;
  return { window: 'account', remaining: 0, resetAfterMs: Math.max(60_000, minutes * 60_000) };
}

/** The highest of `call_count`, `total_time`, `total_cputime` in an app or business usage header. */
function usedPercent(raw: string | null): number {
  if (raw === null) return 0;
  let usage: unknown;
  try {
    usage = JSON.parse(raw);
  } catch {
    return 0;
  }
  const entries: unknown[] = [];
  if (typeof usage === 'object' && usage !== null && 'call_count' in usage) entries.push(usage);
  else if (typeof usage === 'object' && usage !== null)
    for (const list of Object.values(usage)) if (Array.isArray(list)) entries.push(...list);
  let highest = 0;
  for (const entry of entries as Record<string, unknown>[])
    for (const field of ['call_count', 'total_time', 'total_cputime'])
      if (typeof entry?.[field] === 'number') highest = Math.max(highest, entry[field] as number);
  return highest;
}

/** `X-Business-Use-Case-Usage` names minutes to regain access; `X-App-Usage` only percentages. */
export function limitWaitMs(
  error: GraphErrorBody,
  headers: Dispatcher.ResponseData['headers'],
): number {
  const fallback =
    error.code !== undefined && TEMPORARY_BLOCK_CODES.has(error.code)
      ? DEFAULT_BLOCK_WAIT_MS
      : DEFAULT_LIMIT_WAIT_MS;
  const minutes = regainMinutes(header(headers, 'x-business-use-case-usage'));
  return minutes > 0 ? minutes * 60_000 : fallback;
}

function regainMinutes(raw: string | null): number {
  if (raw === null) return 0;
  let usage: unknown;
  try {
    usage = JSON.parse(raw);
  } catch {
    return 0;
  }
  if (typeof usage !== 'object' || usage === null) return 0;
  let longest = 0;
  for (const entries of Object.values(usage as Record<string, unknown>)) {
    if (!Array.isArray(entries)) continue;
    for (const entry of entries as { estimated_time_to_regain_access?: unknown }[]) {
      const minutes = entry?.estimated_time_to_regain_access;
      if (typeof minutes === 'number' && Number.isFinite(minutes))
        longest = Math.max(longest, minutes);
    }
  }
  return longest;
}

function header(headers: Dispatcher.ResponseData['headers'], name: string): string | null {
  const value = headers[name];
  if (Array.isArray(value)) return value[0] ?? null;
  return typeof value === 'string' ? value : null;
}
