import { Injectable, Optional } from '@nestjs/common';
import type { AppConfig } from '../../../infrastructure/config/config';
import { InjectConfig } from '../../../infrastructure/config/config.module';
import { Metrics } from '../../../infrastructure/metrics/metrics.service';
import type { ContainerParams, PublishingLimit } from '../meta/container-flow';
import { GraphApi, GraphClient } from '../meta/graph-client';
import { threadsSettings } from './threads-settings';

const VERSION = '/v1.0';

export interface ThreadsToken {
  access_token?: string;
  user_id?: number | string;
  token_type?: string;
  expires_in?: number;
}

export interface ThreadsProfile {
  id?: string;
  username?: string;
}

export interface ThreadsContainerAnswer {
  id?: string;
  status?: string;
  error_message?: string;
}

export interface ThreadsMedia {
  id?: string;
  permalink?: string;
  text?: string;
  timestamp?: string;
}

@Injectable()
export class ThreadsApi extends GraphApi {
  constructor(@InjectConfig() config: AppConfig, @Optional() metrics?: Metrics) {
    super(new GraphClient(() => threadsSettings(config).graphUrl, 'threads', metrics));
  }

  exchangeCode(
    grant: { clientId: string; clientSecret: string; code: string; redirectUri: string },
    signal: AbortSignal,
  ) {
    return this.graph.call<ThreadsToken>(
      {
        name: 'token',
        method: 'POST',
        path: '/oauth/access_token',
        params: {
          client_id: grant.clientId,
          client_secret: grant.clientSecret,
          code: grant.code,
          grant_type: 'authorization_code',
          redirect_uri: grant.redirectUri,
        },
      },
      signal,
      this.observe,
    );
  }

  /** A short-lived token for a long-lived one (60 days). */
  longLived(clientSecret: string, accessToken: string, signal: AbortSignal) {
    return this.graph.call<ThreadsToken>(
      {
        name: 'long_lived_token',
        method: 'GET',
        path: '/access_token',
        params: {
          grant_type: 'th_exchange_token',
          client_secret: clientSecret,
          access_token: accessToken,
        },
      },
      signal,
      this.observe,
    );
  }

  /** A long-lived token at least a day old for a new one, valid 60 days from now. */
  refresh(accessToken: string, signal: AbortSignal) {
    return this.graph.call<ThreadsToken>(
      {
        name: 'refresh_token',
        method: 'GET',
        path: '/refresh_access_token',
        params: { grant_type: 'th_refresh_token', access_token: accessToken },
      },
      signal,
      this.observe,
    );
  }

  me(accessToken: string, signal: AbortSignal) {
    return this.graph.call<ThreadsProfile>(
      {
        name: 'me',
        method: 'GET',
        path: `${VERSION}/me`,
        params: { fields: 'id,username', access_token: accessToken },
      },
      signal,
      this.observe,
    );
  }

  createContainer(
    userId: string,
    accessToken: string,
    params: ContainerParams,
    signal: AbortSignal,
  ) {
    return this.graph.call<ThreadsContainerAnswer>(
      {
        name: 'create_container',
        method: 'POST',
        path: `${VERSION}/${encodeURIComponent(userId)}/threads`,
        params: { ...params, access_token: accessToken },
      },
      signal,
      this.observe,
    );
  }

  containerStatus(containerId: string, accessToken: string, signal: AbortSignal) {
    return this.graph.call<ThreadsContainerAnswer>(
      {
        name: 'container_status',
        method: 'GET',
        path: `${VERSION}/${encodeURIComponent(containerId)}`,
        params: { fields: 'id,status,error_message', access_token: accessToken },
      },
      signal,
      this.observe,
    );
  }

  publish(userId: string, accessToken: string, creationId: string, signal: AbortSignal) {
    return this.graph.call<{ id?: string }>(
      {
        name: 'publish',
        method: 'POST',
        path: `${VERSION}/${encodeURIComponent(userId)}/threads_publish`,
        params: { creation_id: creationId, access_token: accessToken },
      },
      signal,
      this.observe,
    );
  }

  media(mediaId: string, accessToken: string, signal: AbortSignal) {
    return this.graph.call<ThreadsMedia>(
      {
        name: 'permalink',
        method: 'GET',
        path: `${VERSION}/${encodeURIComponent(mediaId)}`,
        params: { fields: 'id,permalink', access_token: accessToken },
      },
      signal,
      this.observe,
    );
  }

  publishingLimit(userId: string, accessToken: string, signal: AbortSignal) {
    return this.graph.call<PublishingLimit>(
      {
        name: 'publishing_limit',
        method: 'GET',
        path: `${VERSION}/${encodeURIComponent(userId)}/threads_publishing_limit`,
        params: { fields: 'quota_usage,config', access_token: accessToken },
      },
      signal,
      this.observe,
    );
  }

  recentPosts(userId: string, accessToken: string, signal: AbortSignal) {
    return this.graph.call<{ data?: ThreadsMedia[] }>(
      {
        name: 'recent_posts',
        method: 'GET',
        path: `${VERSION}/${encodeURIComponent(userId)}/threads`,
        params: { fields: 'id,permalink,text,timestamp', limit: '10', access_token: accessToken },
      },
      signal,
      this.observe,
    );
  }
}
