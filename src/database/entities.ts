import { Account } from '../accounts/account.entity';
import { ApiKey } from '../api-keys/api-key.entity';
import { Session } from '../auth/session.entity';
import { Channel } from '../channels/channel.entity';
import { IdempotencyKey } from '../idempotency/idempotency-key.entity';
import { MediaAsset } from '../media/media-asset.entity';
import { ProjectMember } from '../members/project-member.entity';
import { PostMedia } from '../posts/post-media.entity';
import { PostTarget } from '../posts/post-target.entity';
import { Post } from '../posts/post.entity';
import { Project } from '../projects/project.entity';
import { PostTemplate } from '../templates/post-template.entity';
import { UserPostMonth } from '../usage/user-post-month.entity';
import { User } from '../users/user.entity';
import { WebhookDelivery } from '../webhooks/webhook-delivery.entity';
import { WebhookEvent } from '../webhooks/webhook-event.entity';
import { WebhookSend } from '../webhooks/webhook-send.entity';
import { Webhook } from '../webhooks/webhook.entity';

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
];
