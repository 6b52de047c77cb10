import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
} from '@nestjs/swagger';
import { AppApi, CurrentProject, ProjectSource } from '../../access/decorators';
import { Principal } from '../../access/principal';
import { ApiErrors } from '../../http/errors/api-errors.decorator';
import { ParseIdPipe } from '../../http/errors/parse-id.pipe';
import type { ProjectAccess } from '../../access/project-access';
import { AddMemberDto, MemberDto, MemberListDto, UpdateMemberDto } from './member.dto';
import { MembersService } from './members.service';

const BY_PROJECT: ProjectSource = { param: 'id' };
const MEMBER_ID = new ParseIdPipe('member_not_found', 'Member not found');

@Controller('api/projects/:id/members')
@ApiErrors('unauthorized', 'forbidden', 'project_not_found')
export class MembersController {
  constructor(private readonly members: MembersService) {}

  @Get()
  @AppApi({ permission: 'can_view_content', project: BY_PROJECT })
  @ApiOperation({ summary: 'The project’s team members (the owner is not a member)' })
  @ApiOkResponse({ type: MemberListDto })
  list(@CurrentProject() project: ProjectAccess): Promise<MemberListDto> {
    return this.members.list(project.project.id);
  }

  @Post()
  @AppApi({ permission: 'can_manage_team', project: BY_PROJECT })
  @ApiOperation({ summary: 'Add an existing user by email, with role defaults and optional flags' })
  @ApiCreatedResponse({ type: MemberDto })
  @ApiErrors('validation_failed', 'user_not_found', 'member_exists')
  add(
    @Principal() who: Principal,
    @CurrentProject() project: ProjectAccess,
    @Body() dto: AddMemberDto,
  ): Promise<MemberDto> {
    return this.members.add(project, who.user.id, dto.email, dto.role, dto.permissions);
  }

  @Patch(':userId')
  @AppApi({ permission: 'can_manage_team', project: BY_PROJECT })
  @ApiOperation({ summary: 'Change a member’s role or flags, within your own role' })
  @ApiOkResponse({ type: MemberDto })
  @ApiErrors('validation_failed', 'member_not_found')
  update(
    @Principal() who: Principal,
    @CurrentProject() project: ProjectAccess,
    @Param('userId', MEMBER_ID) userId: number,
    @Body() dto: UpdateMemberDto,
  ): Promise<MemberDto> {
    return this.members.update(project, who.user.id, userId, dto);
  }

  /** Membership is enough to leave (DELETE of oneself); removing others needs can_manage_team. */
  @Delete(':userId')
  @HttpCode(204)
  @AppApi({ permission: null, project: BY_PROJECT })
  @ApiOperation({ summary: 'Remove a member, or leave the project (your own user id)' })
  @ApiNoContentResponse()
  @ApiErrors('member_not_found')
  remove(
    @Principal() who: Principal,
    @CurrentProject() project: ProjectAccess,
    @Param('userId', MEMBER_ID) userId: number,
  ): Promise<void> {
    return this.members.remove(project, who.user.id, userId);
  }
}
