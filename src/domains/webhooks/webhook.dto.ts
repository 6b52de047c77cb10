import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayNotEmpty,
  IsArray,
  IsIn,
  IsInt,
  IsString,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { SUBSCRIBABLE_EVENTS, TEST_EVENT, type SubscribableEvent } from './webhook-events';
import { Omittable } from '../../http/input/omittable';

export const MAX_WEBHOOK_URL_LENGTH = 2048;
export const DEFAULT_DELIVERY_LIST_LIMIT = 20;
export const MAX_DELIVERY_LIST_LIMIT = 100;
/** Longer than any cursor the log hands out. */
const MAX_DELIVERY_CURSOR_LENGTH = 512;

export class CreateWebhookDto {
  @ApiProperty({
    example: 'https://example.com/herald/webhooks',
    maxLength: MAX_WEBHOOK_URL_LENGTH,
    description:
      'An absolute http(s) URL without credentials; its host must not be local or private.',
  })
  @IsString()
  @MaxLength(MAX_WEBHOOK_URL_LENGTH)
  url!: string;

  @ApiProperty({ enum: SUBSCRIBABLE_EVENTS, isArray: true, minItems: 1 })
  @IsArray()
  @ArrayNotEmpty()
  @ArrayMaxSize(SUBSCRIBABLE_EVENTS.length * 4)
  @IsIn(SUBSCRIBABLE_EVENTS, { each: true })
  events!: SubscribableEvent[];
}

export class WebhookDto {
  @ApiProperty() id!: number;
  @ApiProperty() url!: string;
  @ApiProperty({ enum: SUBSCRIBABLE_EVENTS, isArray: true }) events!: SubscribableEvent[];
  @ApiProperty({ description: 'False once deliveries kept failing; see disabled_reason' })
  enabled!: boolean;
  @ApiProperty({ type: String, nullable: true }) disabled_reason!: string | null;
  @ApiProperty({
    description:
      'Made with a test key: receives the events of test posts only. Live webhooks (a live key ' +
      'or the application API) receive live events only.',
  })
  test!: boolean;
  @ApiProperty({ example: '2026-11-23T08:00:00.123456' }) created_at!: string;
}

export class WebhookCreatedDto extends WebhookDto {
  @ApiProperty({
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwAAAAAAAAAAA=',
    description: 'The signing secret; shown only in this answer.',
  })
  secret!: string;
}

export class WebhookListDto {
  @ApiProperty({ type: [WebhookDto] }) items!: WebhookDto[];
  @ApiProperty() count!: number;
}

export class WebhookDeliveryDto {
  @ApiProperty() id!: number;
  @ApiProperty({ description: 'The webhook-id header; the same on every attempt of the event' })
  event_id!: string;
  @ApiProperty({ enum: [...SUBSCRIBABLE_EVENTS, TEST_EVENT] }) event_type!: string;
  @ApiProperty({ description: '1 for the first attempt' }) attempt!: number;
  @ApiProperty({ type: Number, nullable: true }) status_code!: number | null;
  @ApiProperty({ type: String, nullable: true }) error!: string | null;
  @ApiProperty() duration_ms!: number;
  @ApiProperty({ example: '2026-11-23T08:00:00.123456' }) created_at!: string;
}

export class WebhookDeliveryListDto {
  @ApiProperty({ type: [WebhookDeliveryDto] }) items!: WebhookDeliveryDto[];
  @ApiProperty() count!: number;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Pass as `cursor` for the next (older) page; null on the last page',
  })
  next_cursor!: string | null;
}

export class WebhookTestDto {
  @ApiProperty({ description: 'The id of the webhook.test event sent' }) event_id!: string;
}

export class ListDeliveriesQuery {
  @ApiPropertyOptional({
    minimum: 1,
    maximum: MAX_DELIVERY_LIST_LIMIT,
    default: DEFAULT_DELIVERY_LIST_LIMIT,
  })
  @Omittable()
  // Only plain digits become a number; "1.5", "1e1", " 5" or a repeated parameter stay invalid.
  @Transform(({ value }: { value: unknown }) =>
    typeof value === 'string' && /^\d{1,6}$/.test(value) ? Number(value) : value,
  )
  @IsInt({ message: 'limit must be an integer from 1 to 100' })
  @Min(1, { message: 'limit must be an integer from 1 to 100' })
  @Max(MAX_DELIVERY_LIST_LIMIT, { message: 'limit must be an integer from 1 to 100' })
  limit?: number;

  @ApiPropertyOptional({
    description: 'The next_cursor of the previous page, to continue the log; opaque',
    maxLength: MAX_DELIVERY_CURSOR_LENGTH,
  })
  @Omittable()
  @IsString()
  @MaxLength(MAX_DELIVERY_CURSOR_LENGTH)
  cursor?: string;
}
