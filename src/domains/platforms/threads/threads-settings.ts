import { IsString } from 'class-validator';
import type { AppConfig } from '../../../infrastructure/config/config';
import { Omittable } from '../../../http/input/omittable';
import { SetTogetherWith, UrlOf } from '../../../infrastructure/config/variable-rules';

/** Threads' environment variables: the operator's Meta app for Threads, and Meta's addresses. */
export class ThreadsVariables {
  @Omittable()
  @IsString()
  @SetTogetherWith('THREADS_APP_SECRET')
  THREADS_APP_ID?: string;

  @Omittable()
  @IsString()
  @SetTogetherWith('THREADS_APP_ID')
  THREADS_APP_SECRET?: string;

  @UrlOf(['http:', 'https:'])
  THREADS_GRAPH_URL = 'https://graph.threads.net';

  @UrlOf(['http:', 'https:'])
  THREADS_AUTHORIZE_URL = 'https://threads.com/oauth/authorize';
}

export interface ThreadsSettings {
  app: { id: string; secret: string } | null;
  /** The Graph API's root, without a version (the operator's, never checked). */
  graphUrl: string;
  authorizeUrl: string;
}

export function readThreadsSettings(v: ThreadsVariables): ThreadsSettings {
  return {
    app:
      v.THREADS_APP_ID && v.THREADS_APP_SECRET
        ? { id: v.THREADS_APP_ID, secret: v.THREADS_APP_SECRET }
        : null,
    graphUrl: v.THREADS_GRAPH_URL.replace(/\/+$/, ''),
    authorizeUrl: v.THREADS_AUTHORIZE_URL,
  };
}

export function threadsSettings(config: AppConfig): ThreadsSettings {
  return config.platforms.threads as ThreadsSettings;
}
