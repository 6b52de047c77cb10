import type { NewPost } from '../../src/posts/posts.repository';
import type { SignedInUser, TestChannel, TestProject } from './factories';

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
