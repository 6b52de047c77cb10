import { applyDecorators, HttpCode } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
} from '@nestjs/swagger';
import { ApiErrors } from '../../http/errors/api-errors.decorator';
import { ParseIdPipe } from '../../http/errors/parse-id.pipe';
import {
  WebhookCreatedDto,
  WebhookDeliveryListDto,
  WebhookListDto,
  WebhookTestDto,
} from './webhook.dto';
import { WEBHOOK_NOT_FOUND } from './webhooks.service';

/** A webhook id that is not a plain positive integer is the webhook's 404. */
export const WebhookIdPipe = new ParseIdPipe(WEBHOOK_NOT_FOUND.code, WEBHOOK_NOT_FOUND.message);

const WebhookIdParam = ApiParam({ name: 'webhookId', type: Number });

/** The same on both APIs: controllers declare only their routes and guards. */
export const WebhookOperation = {
  create: () =>
    applyDecorators(
      ApiOperation({
        summary: 'Add a webhook endpoint; the answer holds its signing secret, shown only here',
        description:
          'A project holds at most 10 webhooks, test and live together (409 limit_reached). ' +
          'A test key makes a test webhook, which receives the events of test posts only.',
      }),
      ApiCreatedResponse({ type: WebhookCreatedDto }),
      ApiErrors(
        'limit_reached',
        'validation_failed',
        'invalid_json',
        'payload_too_large',
        'invalid_url',
        'url_not_allowed',
      ),
    ),
  list: () =>
    applyDecorators(
      ApiOperation({ summary: 'The project’s webhook endpoints (never their secrets)' }),
      ApiOkResponse({ type: WebhookListDto }),
    ),
  remove: () =>
    applyDecorators(
      HttpCode(204),
      ApiOperation({ summary: 'Remove a webhook endpoint; nothing more is sent to it' }),
      WebhookIdParam,
      ApiNoContentResponse(),
      ApiErrors('webhook_not_found'),
    ),
  deliveries: () =>
    applyDecorators(
      ApiOperation({ summary: 'Delivery attempts to the endpoint, newest first (kept 30 days)' }),
      WebhookIdParam,
      ApiOkResponse({ type: WebhookDeliveryListDto }),
      ApiErrors('webhook_not_found', 'validation_failed'),
    ),
  test: () =>
    applyDecorators(
      HttpCode(202),
      ApiOperation({ summary: 'Send a webhook.test event to the endpoint' }),
      WebhookIdParam,
      ApiAcceptedResponse({ type: WebhookTestDto }),
      ApiErrors('webhook_not_found'),
    ),
};
