import { applyDecorators, Type } from '@nestjs/common';
import { ApiBody } from '@nestjs/swagger';
import { EXAMPLE_PLATFORM } from '../../platforms/platforms';

/** Whole bodies Herald accepts as they stand; property examples would mix exclusive fields. */
const DEMO_TARGETS = [
  { channel_ref: `${EXAMPLE_PLATFORM.name}:1:${EXAMPLE_PLATFORM.examples.demoChannelId}` },
];

export const CREATE_POST_EXAMPLE = {
  text: 'Hello from Herald',
  targets: DEMO_TARGETS,
  publish_now: true,
};

export const UPDATE_POST_EXAMPLE = { text: 'New wording' };

export function ApiBodyExample(type: Type<unknown>, example: object): MethodDecorator {
  return applyDecorators(ApiBody({ type, examples: { example: { value: example } } }));
}
