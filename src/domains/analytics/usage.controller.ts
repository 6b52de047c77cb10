import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty } from '@nestjs/swagger';
import { PUBLIC_API_PREFIX, PublicApi } from '../../access/decorators';
import { Principal } from '../../access/principal';
import { ApiErrors } from '../../http/errors/api-errors.decorator';
import type { Usage } from './analytics.repository';
import { UsageService } from './usage.service';

export class UsageDto implements Usage {
  @ApiProperty({ description: 'Posts the key user created since the 1st of this month, UTC' })
  posts_this_month!: number;
  @ApiProperty({ description: 'Projects GET /projects lists' }) projects_count!: number;
  @ApiProperty({ description: 'The user’s keys neither revoked nor expired' })
  api_keys_count!: number;
}

@Controller(`${PUBLIC_API_PREFIX}/usage`)
export class UsageController {
  constructor(private readonly usage: UsageService) {}

  @Get()
  @PublicApi({ scope: 'usage:read' })
  @ApiOperation({ summary: 'Usage of the key’s user' })
  @ApiOkResponse({ type: UsageDto })
  @ApiErrors('unauthorized', 'insufficient_scope', 'rate_limit_exceeded')
  get(@Principal() who: Principal): Promise<Usage> {
    return this.usage.forUser(who.user.id);
  }
}
