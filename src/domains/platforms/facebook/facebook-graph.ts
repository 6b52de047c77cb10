import type { AppConfig } from '../../../infrastructure/config/config';
import type { Metrics } from '../../../infrastructure/metrics/metrics.service';
import { facebookApp } from './facebook-app';
import { GraphApi, GraphClient } from '../meta/graph-client';

export interface FacebookToken {
  access_token?: string;
  token_type?: string;
  expires_in?: number;
}

export interface FacebookPage {
  id?: string;
  name?: string;
  access_token?: string;
  link?: string;
}

export interface MadeObject {
  id?: string;
  post_id?: string;
}

const PAGE_FIELDS = 'id,name,access_token,link';

/** graph.facebook.com for Facebook Login and pages; tokens never in an error. */
export class FacebookGraph extends GraphApi {
  constructor(config: AppConfig, platform: string, metrics?: Metrics) {
    super(new GraphClient(() => facebookApp(config).graphUrl, platform, metrics));
  }

  exchangeCode(
    grant: { clientId: string; clientSecret: string; code: string; redirectUri: string },
    signal: AbortSignal,
  ) {
    return this.get<FacebookToken>('token', '/oauth/access_token', signal, {
      client_id: grant.clientId,
      client_secret: grant.clientSecret,
      redirect_uri: grant.redirectUri,
      code: grant.code,
    });
  }

  longLived(app: { id: string; secret: string }, token: string, signal: AbortSignal) {
    return this.get<FacebookToken>('long_lived_token', '/oauth/access_token', signal, {
      grant_type: 'fb_exchange_token',
      client_id: app.id,
      client_secret: app.secret,
      fb_exchange_token: token,
    });
  }

  me(token: string, signal: AbortSignal) {
    return this.get<{ id?: string; name?: string }>('me', '/me', signal, {
      fields: 'id,name',
      access_token: token,
    });
  }

  /** Every page the user manages, with its token (long-lived from a long-lived user token). */
  async pages<P extends FacebookPage>(
    token: string,
    extraFields: string,
    signal: AbortSignal,
  ): Promise<P[]> {
    const fields = extraFields ? `${PAGE_FIELDS},${extraFields}` : PAGE_FIELDS;
    const pages: P[] = [];
    let after: string | undefined;
    for (let page = 0; page < 20; page++) {
      const answer = await this.get<{
        data?: P[];
        paging?: { cursors?: { after?: string }; next?: string };
      }>('pages', '/me/accounts', signal, { fields, limit: '100', after, access_token: token });
      pages.push(...(answer?.data ?? []));
      after = answer?.paging?.next ? answer.paging.cursors?.after : undefined;
      if (!after) break;
    }
    return pages;
  }

  post(
    name: string,
    path: string,
    params: Record<string, string | undefined>,
    token: string,
    signal: AbortSignal,
  ) {
    return this.graph.call<MadeObject>(
      { name, method: 'POST', path, params: { ...params, access_token: token } },
      signal,
      this.observe,
    );
  }

  comments(objectId: string, token: string, signal: AbortSignal) {
    return this.get<{ data?: { id?: string; message?: string; text?: string }[] }>(
      'comments',
      `/${encodeURIComponent(objectId)}/comments`,
      signal,
      {
        fields: 'id,message,text',
        limit: '50',
        order: 'reverse_chronological',
        access_token: token,
      },
    );
  }

  protected get<T>(
    name: string,
    path: string,
    signal: AbortSignal,
    params: Record<string, string | undefined>,
  ) {
    return this.graph.call<T>({ name, method: 'GET', path, params }, signal, this.observe);
  }
}
