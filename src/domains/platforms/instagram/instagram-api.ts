import { Injectable, Optional } from '@nestjs/common';
import type { AppConfig } from '../../../infrastructure/config/config';
import { InjectConfig } from '../../../infrastructure/config/config.module';
import { Metrics } from '../../../infrastructure/metrics/metrics.service';
import { FacebookGraph, type FacebookPage } from '../facebook/facebook-graph';
import type { ContainerParams, ListedPost, PublishingLimit } from '../meta/container-flow';

/** A page with the professional account linked to it. */
export interface LinkedPage extends FacebookPage {
  instagram_business_account?: { id?: string; username?: string };
}

export const LINKED_ACCOUNT_FIELDS = 'instagram_business_account{id,username}';

/** The Graph API as professional accounts use it, its calls counted under `instagram`. */
@Injectable()
export class InstagramApi extends FacebookGraph {
  constructor(@InjectConfig() config: AppConfig, @Optional() metrics?: Metrics) {
    super(config, 'instagram', metrics);
  }

  createContainer(igUserId: string, params: ContainerParams, token: string, signal: AbortSignal) {
    return this.post(
      'create_container',
      `/${encodeURIComponent(igUserId)}/media`,
      params,
      token,
      signal,
    );
  }

  containerStatus(containerId: string, token: string, signal: AbortSignal) {
    return this.get<{ id?: string; status_code?: string; status?: string }>(
      'container_status',
      `/${encodeURIComponent(containerId)}`,
      signal,
      { fields: 'id,status_code,status', access_token: token },
    );
  }

  publishContainer(igUserId: string, creationId: string, token: string, signal: AbortSignal) {
    return this.post(
      'publish',
      `/${encodeURIComponent(igUserId)}/media_publish`,
      { creation_id: creationId },
      token,
      signal,
    );
  }

  permalink(mediaId: string, token: string, signal: AbortSignal) {
    return this.get<{ id?: string; permalink?: string }>(
      'permalink',
      `/${encodeURIComponent(mediaId)}`,
      signal,
      { fields: 'id,permalink', access_token: token },
    );
  }

  publishingLimit(igUserId: string, token: string, signal: AbortSignal) {
    return this.get<PublishingLimit>(
      'publishing_limit',
      `/${encodeURIComponent(igUserId)}/content_publishing_limit`,
      signal,
      { fields: 'quota_usage,config', access_token: token },
    );
  }

  async recentMedia(igUserId: string, token: string, signal: AbortSignal): Promise<ListedPost[]> {
    const answer = await this.get<{
      data?: { id?: string; permalink?: string; caption?: string; timestamp?: string }[];
    }>('recent_media', `/${encodeURIComponent(igUserId)}/media`, signal, {
      fields: 'id,permalink,caption,timestamp',
      limit: '10',
      access_token: token,
    });
    return (answer?.data ?? []).map((media) => ({ ...media, text: media.caption }));
  }
}
