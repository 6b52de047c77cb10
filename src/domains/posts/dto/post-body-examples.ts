import { applyDecorators, Type } from '@nestjs/common';
import { ApiBody } from '@nestjs/swagger';
import { EXAMPLE_PLATFORM } from '../../platforms/platforms';

/**
 * The request bodies the API documentation pre-fills ("Try it out"): whole bodies that Herald
 * accepts as they stand, against the quick start's demo channel. Built from the properties'
 * examples instead, a body would combine fields that exclude each other (scheduled_at with
 * publish_now) and a date that ages into the past.
 */
const DEMO_TARGETS = [
  { channel_ref: `${EXAMPLE_PLATFORM.name}:1:${EXAMPLE_PLATFORM.examples.demoChannelId}` },
];

export const CREATE_POST_EXAMPLE = {
  text: 'Hello from Herald',
  targets: DEMO_TARGETS,
  publish_now: true,
};

export const UPDATE_POST_EXAMPLE = { text: 'New wording' };

/** `@ApiBody` of `type` with `example` as the one example offered. */
export function ApiBodyExample(type: Type<unknown>, example: object): MethodDecorator {
  return applyDecorators(ApiBody({ type, examples: { example: { value: example } } }));
}
