import { Body, Controller, Delete, HttpCode, Param, Post, Put } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
} from '@nestjs/swagger';
import { SessionAuth } from '../auth/decorators';
import { ChannelListItemDto } from '../channels/dto/channel.dto';
import { ParseIdPipe } from '../errors/parse-id.pipe';
import { CurrentProject, ProjectSource, RequirePermission } from '../members/require-permission';
import type { ProjectAccess } from '../projects/project-access';
import type { ConnectFields } from '../platforms/platform';
import { AccountsService } from './accounts.service';
import {
  AccountResponseDto,
  AddChannelDto,
  CreateAccountDto,
  UpdateAccountDto,
} from './dto/account.dto';
import { ApiErrors } from '../errors/api-errors.decorator';

const BY_ACCOUNT: ProjectSource = { resource: 'account', param: 'id' };
const ACCOUNT_ID = new ParseIdPipe('account_not_found', 'Account not found');

@Controller('api/accounts')
@SessionAuth()
export class AccountsController {
  constructor(private readonly accounts: AccountsService) {}

  @Post()
  @RequirePermission('can_manage_accounts')
  @ApiOperation({ summary: 'Connect a Telegram bot (checked with getMe)' })
  @ApiCreatedResponse({ type: AccountResponseDto })
  @ApiErrors(
    'telegram_rejected',
    'telegram_unavailable',
    'mastodon_rejected',
    'mastodon_unavailable',
    'invalid_url',
    'url_not_allowed',
  )
  create(
    @CurrentProject() project: ProjectAccess,
    @Body() dto: CreateAccountDto,
  ): Promise<AccountResponseDto> {
    return this.accounts.create(project.project.id, dto.platform, credentialFields(dto));
  }

  @Put(':id')
  @RequirePermission('can_manage_accounts', BY_ACCOUNT)
  @ApiOperation({ summary: 'Replace the bot token; clears needs_reconnect' })
  @ApiOkResponse({ type: AccountResponseDto })
  @ApiErrors(
    'account_not_found',
    'telegram_rejected',
    'telegram_unavailable',
    'mastodon_rejected',
    'mastodon_unavailable',
    'invalid_url',
    'url_not_allowed',
  )
  update(
    @Param('id', ACCOUNT_ID) id: number,
    @Body() dto: UpdateAccountDto,
  ): Promise<AccountResponseDto> {
    return this.accounts.updateCredentials(id, credentialFields(dto));
  }

  @Delete(':id')
  @HttpCode(204)
  @RequirePermission('can_manage_accounts', BY_ACCOUNT)
  @ApiOperation({ summary: 'Disconnect the account and its channels' })
  @ApiNoContentResponse()
  @ApiErrors('account_not_found')
  remove(@Param('id', ACCOUNT_ID) id: number): Promise<void> {
    return this.accounts.remove(id);
  }

  @Post(':id/channels')
  @RequirePermission('can_manage_accounts', BY_ACCOUNT)
  @ApiOperation({ summary: 'Add a chat the bot posts to (checked with getChat)' })
  @ApiCreatedResponse({ type: ChannelListItemDto })
  @ApiErrors(
    'account_not_found',
    'channel_exists',
    'telegram_rejected',
    'telegram_unavailable',
    'channels_not_addable',
  )
  addChannel(
    @Param('id', ACCOUNT_ID) id: number,
    @Body() dto: AddChannelDto,
  ): Promise<ChannelListItemDto> {
    return this.accounts.addChannel(id, { ...dto });
  }
}

/** The body's credential fields, which the account's platform reads (the rest is Herald's). */
function credentialFields(dto: CreateAccountDto | UpdateAccountDto): ConnectFields {
  const { project_id: _project, platform: _platform, ...fields } = dto as Partial<CreateAccountDto>;
  return fields;
}
