import { Injectable, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import type { ErrorCode } from '../http/errors/error-codes';
import { PermissionMetadata, type PermissionRequirement } from './decorators';

/** A domain's repository answering which project a resource belongs to. */
export interface ProjectLookup {
  /** Null when there is none. */
  projectOf(id: number): Promise<number | null>;
}

export interface ResourceLookup {
  resource: string;
  notFound: { code: ErrorCode; message: string };
}

/** `@LooksUpProjectOf({ resource: 'account', notFound })`, for resources routes name by id. */
export const LooksUpProjectOf = DiscoveryService.createDecorator<ResourceLookup>();

/** Found once at start; a declared resource without exactly one lookup stops the application. */
@Injectable()
export class ProjectLookups implements OnModuleInit {
  private readonly byResource = new Map<string, { lookup: ProjectLookup } & ResourceLookup>();

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
  ) {}

  onModuleInit(): void {
    for (const wrapper of this.discovery.getProviders({ metadataKey: LooksUpProjectOf.KEY })) {
      const declared = this.discovery.getMetadataByDecorator(LooksUpProjectOf, wrapper);
      if (!declared) continue;
      if (this.byResource.has(declared.resource))
        throw new Error(`Two providers look up the project of a ${declared.resource}`);
      this.byResource.set(declared.resource, {
        ...declared,
        lookup: wrapper.instance as ProjectLookup,
      });
    }
    for (const { resource, route } of this.declaredResources()) {
      if (!this.byResource.has(resource))
        throw new Error(
          `${route} finds its project by a ${resource}, which no provider looks up (@LooksUpProjectOf)`,
        );
    }
  }

  get(resource: string): { lookup: ProjectLookup } & ResourceLookup {
    const found = this.byResource.get(resource);
    if (!found) throw new Error(`No project lookup for ${resource}`);
    return found;
  }

  private declaredResources(): { resource: string; route: string }[] {
    const declared: { resource: string; route: string }[] = [];
    for (const wrapper of this.discovery.getControllers()) {
      const controller = wrapper.metatype as (new (...args: never[]) => object) | null;
      if (!controller) continue;
      for (const method of this.scanner.getAllMethodNames(controller.prototype)) {
        const handler = (controller.prototype as Record<string, () => unknown>)[method];
        const requirement = this.reflector.getAllAndOverride<PermissionRequirement | undefined>(
          PermissionMetadata,
          [handler, controller],
        );
        const resource = requirement?.source.resource;
        if (resource) declared.push({ resource, route: `${controller.name}.${method}` });
      }
    }
    return declared;
  }
}
