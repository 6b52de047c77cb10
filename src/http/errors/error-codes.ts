import { PermissionFlag, PERMISSION_MESSAGES } from '../../access/permissions';
import { PLATFORM_DESCRIPTORS, type PlatformErrorCode } from '../../domains/platforms/platforms';

/** One table of codes and statuses, so they never drift; platforms add theirs. */
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
  thread_not_supported: 400,
  too_many_media: 400,
  too_many_links: 400,
  too_many_hashtags: 400,
  media_required: 400,
  media_url_not_public: 400,
  media_not_supported: 400,
  media_too_large: 400,
  channel_not_supported: 400,
  channels_not_addable: 400,
  platform_not_configured: 400,
  oauth_required: 400,
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

/**
 * Codes that also answer for the URL's own resource: there they are 404, as every resource a path
 * names, while in a body (a post's `media_ids`) they keep the table's status.
 */
export const PATH_RESOURCE_STATUS = { media_not_found: 404 } as const;
export type PathResourceCode = keyof typeof PATH_RESOURCE_STATUS;

let statuses: ReadonlyMap<string, number> | undefined;

/** Platform codes join on first use, once the registration list (which imports this) loaded. */
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
  /** Where the answer lists several (a post's rules). */
  code?: string;
  /** Null when about the post as a whole. */
  channel_ref?: string | null;
}

export class AppError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
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

  /** The resource the path names does not exist (in this project). */
  static pathResourceNotFound(code: PathResourceCode, message: string): AppError {
    return new PathResourceNotFound(code, message);
  }
}

class PathResourceNotFound extends AppError {
  override readonly status: number;

  constructor(code: PathResourceCode, message: string) {
    super(code, message);
    this.status = PATH_RESOURCE_STATUS[code];
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
