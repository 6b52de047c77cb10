import { Injectable } from '@nestjs/common';
import { ErrorCode } from '../http/errors/error-codes';

export interface ProjectResolver {
  /** The project that owns the resource with this id, or null when there is none. */
  resolve(id: number): Promise<number | null>;
  /** Answered when the resource does not exist or belongs to a project the caller cannot see. */
  notFound: { code: ErrorCode; message: string };
}

/** Resolvers from a resource (account, post, template) to its project; each module registers its own. */
@Injectable()
export class ProjectResolvers {
  private readonly resolvers = new Map<string, ProjectResolver>();

  register(name: string, resolver: ProjectResolver): void {
    this.resolvers.set(name, resolver);
  }

  get(name: string): ProjectResolver {
    const resolver = this.resolvers.get(name);
    if (!resolver) throw new Error(`No project resolver registered for "${name}"`);
    return resolver;
  }
}
