import { Injectable, Optional } from '@nestjs/common';
import type { AppConfig } from '../infrastructure/config/config';
import { InjectConfig } from '../infrastructure/config/config.module';
import { Metrics } from '../infrastructure/metrics/metrics.service';
import { InvalidatedCache, CacheInvalidation } from '../infrastructure/redis/cache-invalidation';
import type { ProjectAccess } from './project-access';

export const PROJECT_ACCESS_CACHE_MAX_ENTRIES = 10_000;

/** PermissionGuard's reads for up to `API_KEY_CACHE_MS`, kept true by invalidations. */
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

  /** Taken before reading the database; `put` stores only if nothing was invalidated since. */
  version(): number {
    return this.memory.version();
  }

  put(version: number, userId: number, access: ProjectAccess): void {
    Object.freeze(access.project);
    Object.freeze(access.permissions);
    this.memory.put(version, `${access.project.id}:${userId}`, Object.freeze(access));
  }

  /** Forgotten here and in every other process. */
  changed(projectId: number): Promise<void> {
    return this.memory.changed(String(projectId), `Change of project ${projectId}`);
  }
}
