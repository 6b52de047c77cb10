import type { Type } from '@nestjs/common';
import type { ErrorCode } from '../http/errors/error-codes';

/** Answers which project a resource belongs to: a domain's repository. */
export interface ProjectOwnerLookup {
  /** The project that owns the resource with this id, or null when there is none. */
  projectOf(id: number): Promise<number | null>;
}

/**
 * A resource named by a path id (an account, a post, a template) whose project a route acts on:
 * PermissionGuard asks `owner`, a provider of the resource's module, for the project, and answers
 * `notFound` when there is none or the caller is no member of it, so another project's resource
 * looks exactly like a missing one.
 */
export interface ProjectResource {
  owner: Type<ProjectOwnerLookup>;
  notFound: { code: ErrorCode; message: string };
}
