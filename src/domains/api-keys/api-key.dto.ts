import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayUnique, IsArray, IsIn, IsString, MaxLength, MinLength } from 'class-validator';
import { API_KEY_MODES, type ApiKeyMode } from './api-key-format';
import { Scope, SCOPES } from '../../access/scopes';
import { Omittable } from '../../http/input/omittable';

export class CreateApiKeyDto {
  @ApiProperty({ example: 'CMS integration' })
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name!: string;

  @ApiPropertyOptional({
    enum: SCOPES,
    isArray: true,
    description: 'Every scope when omitted',
  })
  @Omittable()
  @IsArray()
  @ArrayUnique()
  @IsIn(SCOPES, { each: true })
  scopes?: Scope[];

  @ApiPropertyOptional({ example: '2027-01-01T00:00:00Z', description: 'ISO 8601, in the future' })
  @Omittable()
  @IsString()
  expires_at?: string;

  @ApiPropertyOptional({
    enum: API_KEY_MODES,
    default: 'live',
    description:
      'A `test` key (`hrld_test_…`) creates and sees only test posts, which go through the whole pipeline but are never sent to a platform',
  })
  @Omittable()
  @IsIn(API_KEY_MODES)
  mode?: ApiKeyMode;
}

export class ApiKeyDto {
  @ApiProperty() id!: number;
  @ApiProperty() name!: string;
  @ApiProperty({
    description: 'The non-secret start of the key',
    example: 'hrld_live_AbCdEfGh12345678',
  })
  prefix!: string;
  @ApiProperty({ enum: API_KEY_MODES }) mode!: ApiKeyMode;
  @ApiProperty({ enum: SCOPES, isArray: true }) scopes!: Scope[];
  @ApiProperty({ nullable: true, type: String }) expires_at!: string | null;
  @ApiProperty() created_at!: string;
  @ApiProperty({ nullable: true, type: String }) last_used_at!: string | null;
  @ApiProperty({ nullable: true, type: String }) revoked_at!: string | null;
}

export class CreatedApiKeyDto extends ApiKeyDto {
  @ApiProperty({
    description: 'The full key, shown this once',
    example: 'hrld_live_AbCdEfGh12345678.…',
  })
  key!: string;
}

export class ApiKeyListDto {
  @ApiProperty({ type: [ApiKeyDto] }) items!: ApiKeyDto[];
  @ApiProperty() count!: number;
}
