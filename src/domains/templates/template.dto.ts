import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsPositive, IsString, MaxLength, MinLength } from 'class-validator';
import { MAX_PROMPT_LENGTH } from '../ai/ai.dto';
import { MAX_TEXT_LENGTH } from '../posts/post-state';
import { Omittable } from '../../http/input/omittable';

export const MAX_TEMPLATE_NAME = 200;

/** A template is a post text, with the post's limit. */
export class CreateTemplateDto {
  @ApiProperty({ example: 1 })
  @IsInt()
  @IsPositive()
  project_id!: number;

  @ApiProperty({ example: 'Release announcement', maxLength: MAX_TEMPLATE_NAME })
  @IsString()
  @MinLength(1)
  @MaxLength(MAX_TEMPLATE_NAME)
  name!: string;

  @ApiProperty({ example: 'We have released {product}!', maxLength: MAX_TEXT_LENGTH })
  @IsString()
  @MinLength(1)
  @MaxLength(MAX_TEXT_LENGTH)
  text!: string;
}

export class UpdateTemplateDto {
  @ApiPropertyOptional({ maxLength: MAX_TEMPLATE_NAME })
  @Omittable()
  @IsString()
  @MinLength(1)
  @MaxLength(MAX_TEMPLATE_NAME)
  name?: string;

  @ApiPropertyOptional({ maxLength: MAX_TEXT_LENGTH })
  @Omittable()
  @IsString()
  @MinLength(1)
  @MaxLength(MAX_TEXT_LENGTH)
  text?: string;
}

export class GenerateTemplateDto {
  @ApiProperty({ example: 1 })
  @IsInt()
  @IsPositive()
  project_id!: number;

  @ApiProperty({ example: 'A weekly digest template', maxLength: MAX_PROMPT_LENGTH })
  @IsString()
  @MinLength(1)
  @MaxLength(MAX_PROMPT_LENGTH)
  prompt!: string;

  @ApiPropertyOptional({
    description: 'Defaults to the start of the prompt',
    maxLength: MAX_TEMPLATE_NAME,
  })
  @Omittable()
  @IsString()
  @MinLength(1)
  @MaxLength(MAX_TEMPLATE_NAME)
  name?: string;
}

export class TemplateDto {
  @ApiProperty() id!: number;
  @ApiProperty() project_id!: number;
  @ApiProperty() name!: string;
  @ApiProperty() text!: string;
  @ApiProperty({ example: '2026-11-22T07:47:01.123456' }) created_at!: string;
  @ApiProperty({ example: '2026-11-22T07:47:01.123456' }) updated_at!: string;
}

export class TemplateListDto {
  @ApiProperty({ type: [TemplateDto] }) items!: TemplateDto[];
  @ApiProperty() count!: number;
}
