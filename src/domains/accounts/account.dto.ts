import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsPositive, IsString, MaxLength } from 'class-validator';
import { Omittable } from '../../http/input/omittable';
import type { ConnectField } from '../platforms/platform-descriptor';
import { PLATFORM_DESCRIPTORS, PLATFORM_NAMES, type PlatformName } from '../platforms/platforms';

/** Long enough for any platform's credential or address; each platform checks its own shape. */
export const MAX_FIELD_LENGTH = 2048;
const MAX_CHANNEL_FIELD_LENGTH = 64;

export interface FieldsOf {
  displayName: string;
  fields: readonly ConnectField[];
}

/** Each field the platforms read, once per name (two may share one), with its OpenAPI text. */
export function declareFields(
  body: { prototype: object },
  methods: FieldsOf[],
  maxLength: number,
): void {
  const fields = new Map<string, { descriptions: string[]; example?: string }>();
  for (const { displayName, fields: own } of methods) {
    for (const field of own) {
      const known = fields.get(field.name) ?? { descriptions: [] };
      known.descriptions.push(`${displayName}: ${field.description}`);
      known.example ??= field.example;
      fields.set(field.name, known);
    }
  }
  for (const [name, { descriptions, example }] of fields) {
    const decorators = [
      ApiPropertyOptional({ type: String, description: descriptions.join('. '), example }),
      Omittable(),
      IsString(),
      MaxLength(maxLength),
    ];
    for (const decorate of decorators.reverse()) decorate(body.prototype, name);
  }
}

/** Each platform reads its own fields (and refuses the others'). */
export class AccountCredentialsDto {
  [field: string]: unknown;
}
declareFields(
  AccountCredentialsDto,
  PLATFORM_DESCRIPTORS.flatMap(({ displayName, connect }) =>
    connect ? [{ displayName, fields: connect.fields }] : [],
  ),
  MAX_FIELD_LENGTH,
);

export class CreateAccountDto extends AccountCredentialsDto {
  @ApiProperty({ example: 1 })
  @IsInt()
  @IsPositive()
  project_id!: number;

  @ApiProperty({ enum: PLATFORM_NAMES, example: PLATFORM_NAMES[0] })
  @IsIn(PLATFORM_NAMES)
  platform!: PlatformName;
}

export class UpdateAccountDto extends AccountCredentialsDto {}

export class AddChannelDto {
  [field: string]: unknown;
}
declareFields(
  AddChannelDto,
  PLATFORM_DESCRIPTORS.flatMap(({ displayName, channels }) =>
    channels ? [{ displayName, fields: channels.fields }] : [],
  ),
  MAX_CHANNEL_FIELD_LENGTH,
);

export class AccountResponseDto {
  @ApiProperty() id!: number;
  @ApiProperty() project_id!: number;
  @ApiProperty({ example: PLATFORM_NAMES[0] }) platform!: string;
  @ApiProperty() title!: string;
  @ApiProperty({ nullable: true, type: String }) username!: string | null;
  @ApiProperty() needs_reconnect!: boolean;
  @ApiProperty() created_at!: string;
}

/** One per platform, each accepted as it stands (shapes only). */
export const CONNECT_EXAMPLES = Object.fromEntries(
  PLATFORM_DESCRIPTORS.flatMap(({ name, connect }) =>
    connect ? [[name, { value: { project_id: 1, platform: name, ...connect.example } }]] : [],
  ),
);

export const RECONNECT_EXAMPLES = Object.fromEntries(
  PLATFORM_DESCRIPTORS.flatMap(({ name, connect }) =>
    connect ? [[name, { value: { ...connect.example } }]] : [],
  ),
);

export const CHANNEL_EXAMPLES = Object.fromEntries(
  PLATFORM_DESCRIPTORS.flatMap(({ name, channels }) =>
    channels ? [[name, { value: { ...channels.example } }]] : [],
  ),
);

export const CONNECT_CHECKS = PLATFORM_DESCRIPTORS.flatMap(({ connect }) =>
  connect ? [connect.checkedWith] : [],
);

export const CHANNEL_CHECKS = {
  added: PLATFORM_DESCRIPTORS.flatMap(({ channels }) => (channels ? [channels.checkedWith] : [])),
  withAccount: PLATFORM_DESCRIPTORS.flatMap(({ displayName, channels }) =>
    channels ? [] : [displayName],
  ),
};
