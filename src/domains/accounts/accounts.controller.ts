import { Body, Controller, Delete, HttpCode, Param, Post, Put } from '@nestjs/common';
import {
  ApiBody,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
} from '@nestjs/swagger';
import { AppApi, CurrentProject, ProjectSource } from '../../access/decorators';
import { ChannelListItemDto } from '../channels/channel.dto';
import { ParseIdPipe } from '../../http/errors/parse-id.pipe';
import type { ProjectAccess } from '../../access/project-access';
import type { ConnectFields } from '../platforms/platform';
import { ACCOUNT_NOT_FOUND } from './accounts.repository';
import { AccountsService } from './accounts.service';
import {
  AccountResponseDto,
  AddChannelDto,
  CHANNEL_CHECKS,
  CHANNEL_EXAMPLES,
  CONNECT_CHECKS,
  CONNECT_EXAMPLES,
  CreateAccountDto,
  RECONNECT_EXAMPLES,
  UpdateAccountDto,
} from './account.dto';
import { ApiErrors } from '../../http/errors/api-errors.decorator';
import type { ErrorCode } from '../../http/errors/error-codes';
import { PLATFORM_DESCRIPTORS } from '../platforms/platforms';

/** The account named by the path: its project is the route's. */
const BY_ACCOUNT: ProjectSource = {
  param: 'id',
  resource: 'account',
};
const ACCOUNT_ID = new ParseIdPipe(ACCOUNT_NOT_FOUND.code, ACCOUNT_NOT_FOUND.message);

/** Each registered platform's refusal (400) and unavailability (502). */
const PLATFORM_ERRORS = PLATFORM_DESCRIPTORS.flatMap(
  (platform) => Object.keys(platform.errors) as ErrorCode[],
);

@Controller('api/accounts')
export class AccountsController {
  constructor(private readonly accounts: AccountsService) {}

  @Post()
  @AppApi({ permission: 'can_manage_accounts' })
  @ApiOperation({
    summary: 'Connect an account, its credentials checked with its platform first',
    description: `Each platform reads its own fields: ${CONNECT_CHECKS.join(', ')}. A field of another platform is refused.`,
  })
  @ApiBody({ type: CreateAccountDto, examples: CONNECT_EXAMPLES })
  @ApiCreatedResponse({ type: AccountResponseDto })
  @ApiErrors(...PLATFORM_ERRORS, 'invalid_url', 'url_not_allowed', 'oauth_required')
  create(
    @CurrentProject() project: ProjectAccess,
    @Body() dto: CreateAccountDto,
  ): Promise<AccountResponseDto> {
    return this.accounts.create(project.project.id, dto.platform, credentialFields(dto));
  }

  @Put(':id')
  @AppApi({ permission: 'can_manage_accounts', project: BY_ACCOUNT })
  @ApiOperation({
    summary:
      "Replace the credentials (the same fields as its platform's connect); clears needs_reconnect",
    description:
      'The credentials must be of the same platform identity (the same bot, the same account); those of another are refused with `409 account_mismatch`: connect them as a new account.',
  })
  @ApiBody({ type: UpdateAccountDto, examples: RECONNECT_EXAMPLES })
  @ApiOkResponse({ type: AccountResponseDto })
  @ApiErrors(
    'account_not_found',
    'account_mismatch',
    'oauth_required',
    ...PLATFORM_ERRORS,
    'invalid_url',
    'url_not_allowed',
  )
  update(
    @CurrentProject() project: ProjectAccess,
    @Param('id', ACCOUNT_ID) id: number,
    @Body() dto: UpdateAccountDto,
  ): Promise<AccountResponseDto> {
    return this.accounts.updateCredentials(project.project.id, id, credentialFields(dto));
  }

  @Delete(':id')
  @HttpCode(204)
  @AppApi({ permission: 'can_manage_accounts', project: BY_ACCOUNT })
  @ApiOperation({
    summary: 'Disconnect the account and its channels',
    description:
      'Its credentials and sessions are erased at once; it and its channels leave every list and can no longer be named in a post (`400 channel_not_found`). Posts keep their targets and delivery history as they were; a target still pending on it fails `channel_removed`. Connecting the same identity again makes a new account.',
  })
  @ApiNoContentResponse()
  @ApiErrors('account_not_found')
  remove(
    @CurrentProject() project: ProjectAccess,
    @Param('id', ACCOUNT_ID) id: number,
  ): Promise<void> {
    return this.accounts.remove(project.project.id, id);
  }

  @Post(':id/channels')
  @AppApi({ permission: 'can_manage_accounts', project: BY_ACCOUNT })
  @ApiOperation({
    summary: 'Add a channel the account posts to, checked with its platform',
    description: `${CHANNEL_CHECKS.added.join(' or ')}. ${CHANNEL_CHECKS.withAccount.join(' and ')} accounts post to their own timeline, added with the account (\`channels_not_addable\`).`,
  })
  @ApiBody({ type: AddChannelDto, examples: CHANNEL_EXAMPLES })
  @ApiCreatedResponse({ type: ChannelListItemDto })
  @ApiErrors(
    'account_not_found',
    'channel_exists',
    'channel_not_supported',
    'channels_not_addable',
    ...PLATFORM_ERRORS,
  )
  addChannel(
    @CurrentProject() project: ProjectAccess,
    @Param('id', ACCOUNT_ID) id: number,
    @Body() dto: AddChannelDto,
  ): Promise<ChannelListItemDto> {
    return this.accounts.addChannel(project.project.id, id, { ...dto });
  }
}

/** The body's credential fields, which the account's platform reads (the rest is Herald's). */
function credentialFields(dto: CreateAccountDto | UpdateAccountDto): ConnectFields {
  const { project_id: _project, platform: _platform, ...fields } = dto as Partial<CreateAccountDto>;
  return fields;
}
