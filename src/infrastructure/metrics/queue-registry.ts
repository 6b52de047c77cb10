import { Injectable } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import Bull from 'bull';

/** Found among Nest's providers, so a new queue shows in metrics and the dashboard by itself. */
@Injectable()
export class QueueRegistry {
  private found: Bull.Queue[] | null = null;

  constructor(private readonly discovery: DiscoveryService) {}

  queues(): Bull.Queue[] {
    this.found ??= this.discover();
    return this.found;
  }

  private discover(): Bull.Queue[] {
    const byName = new Map<string, Bull.Queue>();
    for (const wrapper of this.discovery.getProviders()) {
      const instance: unknown = wrapper.isDependencyTreeStatic() ? wrapper.instance : undefined;
      if (instance instanceof Bull && !byName.has(instance.name))
        byName.set(instance.name, instance);
    }
    return [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
  }
}
