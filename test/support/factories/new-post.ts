import type { NewPost } from '../../../src/domains/posts/post-rows';
import type { Factory, SignedInUser, TestChannel, TestProject } from './factories';
import type { TestApp } from '../test-app';

/** A live draft to `targets`, as the posts service hands it to `PostsRepository.insertPost`. */
export function newDraft(
  project: TestProject,
  author: SignedInUser,
  text: string,
  targets: TestChannel[] = [],
): NewPost {
  return {
    scope: { projectId: project.id, test: false },
    userId: author.id,
    text,
    status: 'draft',
    scheduledAt: null,
    publishAttempt: 0,
    refs: targets.map((c) => ({
      platform: c.platform,
      accountId: c.account_id,
      channelId: c.channel_id,
    })),
    mediaIds: [],
    requireConnected: false,
  };
}

/**
 * A project with two channels, a third whose account needs reconnecting, an image and a video,
 * and a stranger's project with a channel and an image of its own: what the rules of a post
 * (targets, media, reconnecting accounts) are tried against.
 */
export interface PostRulesWorld {
  owner: SignedInUser;
  project: TestProject;
  key: string;
  channel: TestChannel;
  other: TestChannel;
  reconnecting: TestChannel;
  image: number;
  video: number;
  strangersChannel: TestChannel;
  strangersMedia: number;
}

export async function postRulesWorld(
  t: TestApp,
  make: Factory,
  name: string,
): Promise<PostRulesWorld> {
  const {
    owner,
    project,
    key,
    channels: [channel, other],
  } = await make.ownerWithChannels(name, 2);
  const account = await make.telegramAccount(owner, project);
  const reconnecting = await make.channel(owner, account.id);
  await make.refuseAccount(project, key, reconnecting);
  const stranger = await make.ownerWithChannels('Someone else', 1);
  return {
    owner,
    project,
    key,
    channel,
    other,
    reconnecting,
    image: await make.media(project, key, 'sample.png'),
    video: await make.media(project, key, 'sample.mp4'),
    strangersChannel: stranger.channels[0],
    strangersMedia: await make.media(stranger.project, stranger.key, 'sample.png'),
  };
}
