import { ApiProperty } from '@nestjs/swagger';
import { IsInt, IsPositive, IsString, MaxLength, MinLength } from 'class-validator';

/** Longest prompt accepted; a post is at most 4096 characters, a prompt needs no more. */
export const MAX_PROMPT_LENGTH = 4000;

export class GenerateDto {
  @ApiProperty({ example: 1 })
  @IsInt()
  @IsPositive()
  project_id!: number;

  @ApiProperty({
    example: 'Announce our new release in a friendly tone',
    maxLength: MAX_PROMPT_LENGTH,
  })
  @IsString()
  @MinLength(1)
  @MaxLength(MAX_PROMPT_LENGTH)
  prompt!: string;
}

export class GeneratedTextDto {
  @ApiProperty() text!: string;
}
