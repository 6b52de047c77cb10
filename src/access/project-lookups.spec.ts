import { Controller, Get, Injectable } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { AppApi } from './decorators';
import { LooksUpProjectOf, ProjectLookups } from './project-lookups';

const NOT_FOUND = { code: 'post_not_found', message: 'Post not found' } as const;

@Controller('things')
class ThingsController {
  @Get(':id')
  @AppApi({ permission: 'can_view_content', project: { param: 'id', resource: 'thing' } })
  get(): string {
    return 'a thing';
  }
}

@Injectable()
@LooksUpProjectOf({ resource: 'thing', notFound: NOT_FOUND })
class ThingsRepository {
  projectOf(id: number): Promise<number | null> {
    return Promise.resolve(id === 1 ? 7 : null);
  }
}

@Injectable()
@LooksUpProjectOf({ resource: 'thing', notFound: NOT_FOUND })
class OtherThingsRepository extends ThingsRepository {}

async function boot(providers: (typeof ThingsRepository)[]): Promise<ProjectLookups> {
  const moduleRef = await Test.createTestingModule({
    imports: [DiscoveryModule],
    controllers: [ThingsController],
    providers: [ProjectLookups, ...providers],
  }).compile();
  await moduleRef.init();
  return moduleRef.get(ProjectLookups);
}

describe('ProjectLookups: a route names its resource, one provider looks its project up', () => {
  it("finds the resource's lookup and its not-found answer", async () => {
    const { lookup, notFound } = (await boot([ThingsRepository])).get('thing');
    expect(await lookup.projectOf(1)).toBe(7);
    expect(await lookup.projectOf(2)).toBeNull();
    expect(notFound).toEqual(NOT_FOUND);
  });

  it('refuses to start when a declared resource has no lookup', async () => {
    await expect(boot([])).rejects.toThrow(
      'ThingsController.get finds its project by a thing, which no provider looks up (@LooksUpProjectOf)',
    );
  });

  it('refuses to start when two providers look up the same resource', async () => {
    await expect(boot([ThingsRepository, OtherThingsRepository])).rejects.toThrow(
      'Two providers look up the project of a thing',
    );
  });
});
