import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsString,
  Matches,
  MaxLength,
  MinLength,
  Validate,
  ValidatorConstraint,
  ValidatorConstraintInterface,
} from 'class-validator';
import { MemberPermissionsDto } from '../members/member.dto';
import { PERMISSION_FLAGS } from '../../access/permissions';
import { Omittable } from '../../http/input/omittable';

/** Accepts only names the runtime's IANA database knows (e.g. `Europe/Moscow`, `UTC`). */
@ValidatorConstraint({ name: 'ianaTimeZone' })
export class IsIanaTimeZone implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    if (typeof value !== 'string' || value.length > 64) return false;
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: value });
      return /^[A-Za-z]/.test(value);
    } catch {
      return false;
    }
  }

  defaultMessage(): string {
    return 'timezone must be an IANA time-zone name such as Europe/Moscow';
  }
}

export class CreateProjectDto {
  @ApiProperty({ example: 'Herald news' })
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name!: string;

  @ApiPropertyOptional({ example: 'Europe/Moscow', default: 'UTC' })
  @Omittable()
  @Validate(IsIanaTimeZone)
  timezone?: string;
}

export class UpdateProjectDto {
  @ApiPropertyOptional()
  @Omittable()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name?: string;

  @ApiPropertyOptional({ example: 'Europe/Moscow' })
  @Omittable()
  @Validate(IsIanaTimeZone)
  timezone?: string;

  @ApiPropertyOptional({ example: 'dark' })
  @Omittable()
  @IsString()
  @Matches(/^[a-z0-9_-]{1,64}$/, { message: 'appearance must be a short theme name' })
  appearance?: string;

  @ApiPropertyOptional({ description: 'Wallpaper image URL or preset name' })
  @Omittable()
  @IsString()
  @MaxLength(2048)
  wallpaper?: string;
}

export class PublicProjectDto {
  @ApiProperty() id!: number;
  @ApiProperty() name!: string;
  @ApiProperty({ example: 'Europe/Moscow' }) timezone!: string;
  @ApiProperty({
    example: '2026-11-22T07:47:01.123456',
    description: 'UTC, microseconds, no offset',
  })
  created_at!: string;
  @ApiProperty() is_owner!: boolean;
}

export class PublicProjectListDto {
  @ApiProperty({ type: [PublicProjectDto] }) items!: PublicProjectDto[];
  @ApiProperty() count!: number;
}

export class AppProjectDto extends PublicProjectDto {
  @ApiProperty({ nullable: true, type: String }) appearance!: string | null;
  @ApiProperty({ nullable: true, type: String }) wallpaper!: string | null;
  @ApiProperty({ enum: ['owner', 'editor', 'observer'] }) role!: string;
  @ApiProperty({
    type: MemberPermissionsDto,
    description: `All nine flags: ${PERMISSION_FLAGS.join(', ')}`,
  })
  my_permissions!: MemberPermissionsDto;
}

export class AppProjectListDto {
  @ApiProperty({ type: [AppProjectDto] }) items!: AppProjectDto[];
  @ApiProperty() count!: number;
}
