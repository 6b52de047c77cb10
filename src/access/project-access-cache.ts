import { Injectable, Optional } from '@nestjs/common';
import type { AppConfig } from '../infrastructure/config/config';
import { InjectConfig } from '../infrastructure/config/config.module';
import { Metrics } from '../infrastructure/metrics/metrics.service';
import { InvalidatedCache, CacheInvalidation } from '../infrastructure/redis/cache-invalidation';
import type { ProjectAccess } from './project-access';

/** Users' accesses held at most; past it the oldest makes room. */
export const PROJECT_ACCESS_CACHE_MAX_ENTRIES = 10_000;

/**
 * Users' access to projects (the project's row and the member's role and flags) as PermissionGuard
 * last read them in this process, so that a project-scoped request reads it once per
 * `API_KEY_CACHE_MS` instead of at every request: a post created with a remembered key and access
 * makes one database round trip, its own. Correct as long as changes are onMessage (InvalidatedCache):
 * every change of a project's settings or members is announced with the project's id, and every
 * process forgets all it remembers of that project. Only accesses are remembered, never their
 * absence: a user just added to a project is let in at once.
 *
 * Entries are frozen: one object serves many requests, and a change would be a bug. Saves a round
 * trip per project-scoped request (docs/performance.md#project-access-cache).
 */
@Injectable()
export class ProjectAccessCache {
  private readonly memory: InvalidatedCache<ProjectAccess>;

  constructor(
    @InjectConfig() config: AppConfig,
    invalidation: CacheInvalidation,
    @Optional() metrics?: Metrics,
  ) {
    this.memory = new InvalidatedCache(invalidation, {
      channel: 'projects:changed',
      owner: ProjectAccessCache.name,
      ttlMs: config.apiKeyCacheMs,
      maxEntries: PROJECT_ACCESS_CACHE_MAX_ENTRIES,
      names: (projectId, key) => key.startsWith(`${projectId}:`),
      lookups: metrics && ((source) => metrics.projectAccessLookups(source)),
    });
  }

  get(userId: number, projectId: number): ProjectAccess | undefined {
    return this.memory.get(`${projectId}:${userId}`);
  }

  /** Taken before reading the database; `put` stores the access only if nothing was onMessage since. */
  version(): number {
    return this.memory.version();
  }

  put(version: number, userId: number, access: ProjectAccess): void {
    Object.freeze(access.project);
    Object.freeze(access.permissions);
    this.memory.put(version, `${access.project.id}:${userId}`, Object.freeze(access));
  }

  /** After a change to the project or its members is stored: forgotten here and everywhere. */
  changed(projectId: number): Promise<void> {
    return this.memory.changed(String(projectId), `Change of project ${projectId}`);
  }
}
