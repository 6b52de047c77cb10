import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
} from '@nestjs/swagger';
import { AppApi } from '../../access/decorators';
import { Principal } from '../../access/principal';
import { ParseIdPipe } from '../../http/errors/parse-id.pipe';
import { ApiKeysService } from './api-keys.service';
import { ApiKeyListDto, CreateApiKeyDto, CreatedApiKeyDto } from './api-key.dto';

@Controller('api/api-keys')
@AppApi({ adminOnly: true })
export class ApiKeysController {
  constructor(private readonly keys: ApiKeysService) {}

  @Post()
  @ApiOperation({ summary: 'Create an API key; the key is shown once' })
  @ApiCreatedResponse({ type: CreatedApiKeyDto })
  create(@Principal() who: Principal, @Body() dto: CreateApiKeyDto): Promise<CreatedApiKeyDto> {
    return this.keys.create(who.user.id, {
      name: dto.name,
      scopes: dto.scopes,
      expiresAt: dto.expires_at,
      mode: dto.mode,
    });
  }

  @Get()
  @ApiOperation({ summary: 'My API keys, never their secrets' })
  @ApiOkResponse({ type: ApiKeyListDto })
  async list(@Principal() who: Principal): Promise<ApiKeyListDto> {
    const items = await this.keys.list(who.user.id);
    return { items, count: items.length };
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Revoke a key; it stops working at once' })
  @ApiNoContentResponse()
  async revoke(
    @Principal() who: Principal,
    @Param('id', new ParseIdPipe('api_key_not_found', 'API key not found')) id: number,
  ): Promise<void> {
    await this.keys.revoke(who.user.id, id);
  }
}
