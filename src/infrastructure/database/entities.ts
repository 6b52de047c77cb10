import { Account } from '../../domains/accounts/account.entity';
import { ApiKey } from '../../domains/api-keys/api-key.entity';
import { Session } from '../../domains/users/session.entity';
import { Channel } from '../../domains/channels/channel.entity';
import { IdempotencyKey } from '../../http/idempotency/idempotency-key.entity';
import { MediaAsset } from '../../domains/media/media-asset.entity';
import { ProjectMember } from '../../domains/members/project-member.entity';
import { PostMedia } from '../../domains/posts/post-media.entity';
import { PostTarget } from '../../domains/posts/post-target.entity';
import { Post } from '../../domains/posts/post.entity';
import { Project } from '../../domains/projects/project.entity';
import { PostTemplate } from '../../domains/templates/post-template.entity';
import { UserPostMonth } from '../../domains/analytics/user-post-month.entity';
import { User } from '../../domains/users/user.entity';
import { WebhookDelivery } from '../../domains/webhooks/webhook-delivery.entity';
import { WebhookEvent } from '../../domains/webhooks/webhook-event.entity';
import { WebhookSend } from '../../domains/webhooks/webhook-send.entity';
import { Webhook } from '../../domains/webhooks/webhook.entity';
import { OAuthClientRow } from '../../domains/connections/oauth-client.entity';
import { OAuthState } from '../../domains/connections/oauth-state.entity';

/** Every entity, listed once for the app, the CLI data source and the tests. */
export const ENTITIES = [
  User,
  Session,
  Project,
  ProjectMember,
  Account,
  Channel,
  ApiKey,
  MediaAsset,
  PostTemplate,
  Post,
  PostTarget,
  PostMedia,
  UserPostMonth,
  IdempotencyKey,
  Webhook,
  WebhookEvent,
  WebhookSend,
  WebhookDelivery,
  OAuthState,
  OAuthClientRow,
];
