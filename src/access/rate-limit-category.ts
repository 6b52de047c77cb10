import { Reflector } from '@nestjs/core';
import type { RateLimitConfig } from '../infrastructure/config/config';

/** Each category has a counter of its own per API key (docs/api-rules.md#rate-limits). */
export const RATE_LIMIT_CATEGORIES = ['upload', 'create_post', 'publish', 'other'] as const;
export type RateLimitCategoryName = (typeof RATE_LIMIT_CATEGORIES)[number];

export const DEFAULT_RATE_LIMIT_CATEGORY: RateLimitCategoryName = 'other';

/** On a method or a controller. */
export const RateLimitCategory = Reflector.createDecorator<RateLimitCategoryName>();

export function categoryLimits(config: RateLimitConfig): Record<RateLimitCategoryName, number> {
  return {
    upload: config.upload,
    create_post: config.createPost,
    publish: config.publish,
    other: config.other,
  };
}
