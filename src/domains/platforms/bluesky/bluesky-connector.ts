import { Injectable } from '@nestjs/common';
import { AppError } from '../../../http/errors/error-codes';
import { platformRateLimited } from '../platform-rate-limit';
import {
  HostUnresolvedError,
  OutboundDispatchers,
} from '../../../infrastructure/outbound/outbound-dispatchers';
import { readFields } from '../connect-fields';
import { BLUESKY_CONNECT } from './bluesky-connect';
import type {
  ConnectedAccount,
  ConnectFields,
  DemoAccount,
  PlatformConnector,
  PlatformIdentity,
} from '../platform';
import { type BlueskyCredentials, sealableCredentials } from './bluesky-credentials';
import { createSession } from './bluesky-sessions';
import { blueskyChannelUrl } from './bluesky-text';
import { BlueskyXrpc, XrpcError, XrpcTransportError } from './bluesky-xrpc';

/** Handle (or DID) and app password, checked by createSession; its one channel is its feed. */
@Injectable()
export class BlueskyConnector implements PlatformConnector {
  readonly platform = 'bluesky';
  readonly displayName = 'Bluesky';

  constructor(
    private readonly xrpc: BlueskyXrpc,
    private readonly outbound: OutboundDispatchers,
  ) {}

  async connect(fields: ConnectFields): Promise<ConnectedAccount> {
    const read = readFields(fields, BLUESKY_CONNECT.fields, this.displayName);
    const service = read.service_url ?? null;
    // A service the user gave is an outbound address: refused now if it is not a public one.
    if (service) await this.check(() => this.outbound.for(service, 'be a Bluesky service'));
    const credentials: BlueskyCredentials = {
      service,
      identifier: (read.identifier as string).replace(/^@/, ''),
      appPassword: read.app_password as string,
    };
    const session = await this.check(() => createSession(this.xrpc, credentials));
    const feed: PlatformIdentity = {
      id: session.did,
      title: session.handle,
      username: session.handle,
      url: blueskyChannelUrl({ channelId: session.did, username: session.handle }),
    };
    return {
      id: session.did,
      title: session.handle,
      username: session.handle,
      secret: sealableCredentials(credentials),
      channels: [feed],
      session: JSON.stringify({ accessJwt: session.accessJwt, refreshJwt: session.refreshJwt }),
    };
  }

  addChannel(): Promise<PlatformIdentity> {
    return Promise.reject(
      new AppError(
        'channels_not_addable',
        'A Bluesky account posts to its own feed, which was added with the account',
      ),
    );
  }

  demo(): DemoAccount {
    const did = 'did:plc:heralddemo0000000000000';
    return {
      account: {
        id: did,
        title: 'herald-demo.bsky.social',
        username: 'herald-demo.bsky.social',
        secret: sealableCredentials({
          service: null,
          identifier: 'herald-demo.bsky.social',
          appPassword: 'demo-demo-demo-demo',
        }),
      },
      channels: [
        {
          id: did,
          title: 'herald-demo.bsky.social',
          username: 'herald-demo.bsky.social',
          url: 'https://bsky.app/profile/herald-demo.bsky.social',
        },
      ],
    };
  }

  /** 429 is a rate limit, another 4xx a refusal, the rest unavailable. */
  private async check<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      if (error instanceof XrpcError && error.status === 429)
        throw platformRateLimited('Bluesky', error.retryAfterMs);
      if (error instanceof XrpcError && error.status < 500 && error.status !== 429)
        throw new AppError(
          'bluesky_rejected',
          `Bluesky rejected the request: ${error.description}`,
        );
      if (
        error instanceof XrpcError ||
        error instanceof XrpcTransportError ||
        error instanceof HostUnresolvedError
      )
        throw new AppError('bluesky_unavailable', 'Bluesky could not be reached; try again later');
      throw error;
    }
  }
}
