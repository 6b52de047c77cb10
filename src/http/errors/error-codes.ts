import { PermissionFlag, PERMISSION_MESSAGES } from '../../access/permissions';
import { PLATFORM_DESCRIPTORS, type PlatformErrorCode } from '../../domains/platforms/platforms';

/**
 * Every error code Herald answers with, and its HTTP status, beside the codes each platform
 * declares in its descriptor (`<platform>_rejected` 400, `<platform>_unavailable` 502, …). One
 * table, so status never drifts.
 */
export const ERROR_STATUS = {
  validation_failed: 400,
  invalid_json: 400,
  too_many_files: 400,
  file_required: 400,
  too_many_media_files: 400,
  invalid_url: 400,
  url_not_allowed: 400,
  channel_not_found: 400,
  mixed_platforms: 400,
  channel_needs_reconnect: 400,
  media_not_found: 400,
  text_too_long: 400,
  too_many_media: 400,
  media_not_supported: 400,
  media_too_large: 400,
  channel_not_supported: 400,
  channels_not_addable: 400,
  unauthorized: 401,
  insufficient_scope: 403,
  forbidden: 403,
  not_found: 404,
  project_not_found: 404,
  post_not_found: 404,
  account_not_found: 404,
  member_not_found: 404,
  user_not_found: 404,
  api_key_not_found: 404,
  template_not_found: 404,
  webhook_not_found: 404,
  method_not_allowed: 405,
  not_acceptable: 406,
  invalid_state: 409,
  channel_exists: 409,
  account_mismatch: 409,
  email_taken: 409,
  member_exists: 409,
  idempotency_key_in_use: 409,
  limit_reached: 409,
  payload_too_large: 413,
  file_too_large: 413,
  unsupported_media_type: 415,
  idempotency_key_reused: 422,
  rate_limit_exceeded: 429,
  internal_error: 500,
  download_failed: 502,
  ai_failed: 502,
  ai_unavailable: 503,
  service_unavailable: 503,
  download_timeout: 504,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS | PlatformErrorCode;

let statuses: ReadonlyMap<string, number> | undefined;

/**
 * The HTTP status of a code. The platforms' codes join the table when it is first asked, after
 * the registration list has loaded (platform code imports this file).
 */
export function errorStatus(code: ErrorCode): number {
  statuses ??= new Map<string, number>([
    ...Object.entries(ERROR_STATUS),
    ...PLATFORM_DESCRIPTORS.flatMap((platform) => Object.entries(platform.errors)),
  ]);
  const status = statuses.get(code);
  if (status === undefined) throw new Error(`No status for error code ${code}`);
  return status;
}

export interface ErrorDetail {
  field: string;
  message: string;
  /** The problem's own code, where the answer lists several (a post's rules). */
  code?: string;
  /** The target a problem is about; null when it is about the post as a whole. */
  channel_ref?: string | null;
}

/** A domain error: a code from the table above, a message for people, optional field details. */
export class AppError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
    /** Extra response headers, e.g. Retry-After. */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.status = errorStatus(code);
  }

  static forbidden(flag: PermissionFlag): AppError {
    return new AppError('forbidden', PERMISSION_MESSAGES[flag]);
  }

  static unauthorized(): AppError {
    return new AppError('unauthorized', 'Missing or invalid credentials');
  }

  static projectNotFound(): AppError {
    return new AppError('project_not_found', 'Project not found');
  }
}

export interface ErrorBody {
  error: { code: string; message: string; details?: ErrorDetail[] };
}

export function errorBody(error: AppError): ErrorBody {
  return {
    error: {
      code: error.code,
      message: error.message,
      ...(error.details && error.details.length > 0 ? { details: error.details } : {}),
    },
  };
}
