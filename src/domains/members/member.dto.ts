import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsBoolean, IsEmail, IsIn, MaxLength, ValidateNested } from 'class-validator';
import { MEMBER_ROLES, type MemberRole } from '../../access/permissions';
import { Omittable } from '../../http/input/omittable';

/** Any subset of the nine flags; unknown keys are refused by the global ValidationPipe. */
export class PermissionsInputDto {
  @ApiPropertyOptional() @Omittable() @IsBoolean() can_view_content?: boolean;
  @ApiPropertyOptional() @Omittable() @IsBoolean() can_edit_content?: boolean;
  @ApiPropertyOptional() @Omittable() @IsBoolean() can_publish?: boolean;
  @ApiPropertyOptional() @Omittable() @IsBoolean() can_use_ai?: boolean;
  @ApiPropertyOptional() @Omittable() @IsBoolean() can_manage_templates?: boolean;
  @ApiPropertyOptional() @Omittable() @IsBoolean() can_view_analytics?: boolean;
  @ApiPropertyOptional() @Omittable() @IsBoolean() can_manage_accounts?: boolean;
  @ApiPropertyOptional() @Omittable() @IsBoolean() can_manage_team?: boolean;
  @ApiPropertyOptional() @Omittable() @IsBoolean() can_manage_settings?: boolean;
}

export class AddMemberDto {
  @ApiProperty({ example: 'colleague@example.com', description: 'An existing user' })
  @IsEmail()
  @MaxLength(254)
  email!: string;

  @ApiProperty({ enum: MEMBER_ROLES })
  @IsIn(MEMBER_ROLES)
  role!: MemberRole;

  @ApiPropertyOptional({
    type: PermissionsInputDto,
    description: 'Flags that override the role’s default flags',
  })
  @Omittable()
  @ValidateNested()
  @Type(() => PermissionsInputDto)
  permissions?: PermissionsInputDto;
}

export class UpdateMemberDto {
  @ApiPropertyOptional({
    enum: MEMBER_ROLES,
    description: 'A new role resets the flags to its defaults, then `permissions` apply',
  })
  @Omittable()
  @IsIn(MEMBER_ROLES)
  role?: MemberRole;

  @ApiPropertyOptional({ type: PermissionsInputDto })
  @Omittable()
  @ValidateNested()
  @Type(() => PermissionsInputDto)
  permissions?: PermissionsInputDto;
}

export class MemberPermissionsDto {
  @ApiProperty() can_view_content!: boolean;
  @ApiProperty() can_edit_content!: boolean;
  @ApiProperty() can_publish!: boolean;
  @ApiProperty() can_use_ai!: boolean;
  @ApiProperty() can_manage_templates!: boolean;
  @ApiProperty() can_view_analytics!: boolean;
  @ApiProperty() can_manage_accounts!: boolean;
  @ApiProperty() can_manage_team!: boolean;
  @ApiProperty() can_manage_settings!: boolean;
}

export class MemberDto {
  @ApiProperty() user_id!: number;
  @ApiProperty() email!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ enum: MEMBER_ROLES }) role!: MemberRole;
  @ApiProperty({ enum: ['Редактор', 'Наблюдатель'] }) role_title!: string;
  @ApiProperty({ type: MemberPermissionsDto }) permissions!: MemberPermissionsDto;
  @ApiProperty({
    example: '2026-11-22T07:47:01.123456',
    description: 'When the member was added (UTC, microseconds)',
  })
  created_at!: string;
}

export class MemberListDto {
  @ApiProperty({ type: [MemberDto] }) items!: MemberDto[];
  @ApiProperty() count!: number;
}
