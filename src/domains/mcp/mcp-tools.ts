import { PLATFORM_DESCRIPTORS } from '../platforms/platforms';

/** Below the public prefix, as OpenAPI names it: `GET /projects/{projectId}/posts`. */
export type ToolRoute = `${ToolMethod} /${string}`;
export type ToolMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** A public route requested in-process; arguments: its path ids, then body or query fields. */
export interface McpTool {
  name: string;
  description: string;
  route: ToolRoute;
  /** Argument name → the route's path parameter it fills. */
  pathIds: Record<string, string>;
  rest: 'body' | 'query' | 'none';
}

/** Then checked as that tool's route. */
export function isToolCall(message: unknown): boolean {
  const { method, params } = (message ?? {}) as { method?: unknown; params?: { name?: unknown } };
  return method === 'tools/call' && MCP_TOOLS.some((tool) => tool.name === params?.name);
}

const PROJECT = { project_id: 'projectId' };
const POST = { project_id: 'projectId', post_id: 'postId' };

const COSTS = {
  other: 'Counts against the API key’s "other" rate limit (requests per minute).',
  create:
    'Counts against the API key’s "create_post" rate limit, the strictest one: check with validate_post first.',
  publish: 'Counts against the API key’s "publish" rate limit.',
  upload: 'Counts against the API key’s "upload" rate limit.',
};

/** The platforms that connect through OAuth, with the start's own fields of each. */
const OAUTH_PLATFORMS_TEXT = PLATFORM_DESCRIPTORS.flatMap(({ name, oauth }) =>
  oauth ? [`platform ${name}${oauth.fields.map((f) => ` with ${f.name}`).join('')}`] : [],
).join('; ');

export const MCP_TOOLS: McpTool[] = [
  {
    name: 'list_projects',
    description:
      'Lists the projects this API key can work in (as owner or team member), with their ids and time zones. ' +
      'Call it first: every other tool except get_usage needs a project_id from here. Needs scope projects:read. ' +
      COSTS.other,
    route: 'GET /projects',
    pathIds: {},
    rest: 'none',
  },
  {
    name: 'list_channels',
    description:
      `Lists the channels (e.g. ${PLATFORM_DESCRIPTORS.map((platform) => platform.aiAudience).join(', ')}) a project can publish to, with the channel_ref a post target names. ` +
      'Use it to find targets before creating a post. Needs scope projects:read and the member permission to view content. ' +
      COSTS.other,
    route: 'GET /projects/{projectId}/channels',
    pathIds: PROJECT,
    rest: 'none',
  },
  {
    name: 'list_posts',
    description:
      'Lists a project’s posts, newest first, a page at a time; filter with status, continue with cursor = the previous ' +
      'page’s next_cursor. Use it to find a post or review what is scheduled. Needs scope posts:read and the permission to view content. ' +
      COSTS.other,
    route: 'GET /projects/{projectId}/posts',
    pathIds: PROJECT,
    rest: 'query',
  },
  {
    name: 'get_post',
    description:
      'Gets one post: its state, each target’s delivery (message ids, errors) and its media. Use it to follow a post after ' +
      'creating or publishing it. Needs scope posts:read and the permission to view content. ' +
      COSTS.other,
    route: 'GET /projects/{projectId}/posts/{postId}',
    pathIds: POST,
    rest: 'none',
  },
  {
    name: 'create_post',
    description:
      'Creates a post in a project: a draft by default, scheduled with scheduled_at (ISO 8601 with offset), or queued for ' +
      'publishing at once with publish_now: true (never both). Needs scope posts:write and the permission to edit content; ' +
      'scheduling or publishing also needs posts:publish and the permission to publish. thread adds further messages, ' +
      'each published as a reply to the one before; split_long_text: true cuts a text over a platform limit into a thread. ' +
      COSTS.create,
    route: 'POST /projects/{projectId}/posts',
    pathIds: PROJECT,
    rest: 'body',
  },
  {
    name: 'validate_post',
    description:
      'Dry run of create_post: takes the same arguments and answers every problem at once, and how many messages the post ' +
      'becomes on each target with the text of each (messages_preview, after any split). Nothing is stored, queued or counted in usage. Use it before create_post. Same scopes and ' +
      'permissions as create_post. ' +
      COSTS.other,
    route: 'POST /projects/{projectId}/posts/validate',
    pathIds: PROJECT,
    rest: 'body',
  },
  {
    name: 'update_post',
    description:
      'Changes a draft or scheduled post: text, media, targets or its time; fields given replace the stored ones. ' +
      'A non-null scheduled_at schedules it (needs posts:publish and the permission to publish); scheduled_at: null turns ' +
      'it back into a draft. Needs scope posts:write and the permission to edit content. ' +
      COSTS.other,
    route: 'PATCH /projects/{projectId}/posts/{postId}',
    pathIds: POST,
    rest: 'body',
  },
  {
    name: 'delete_post',
    description:
      'Deletes a draft, scheduled or failed post; a scheduled post is then never published. Messages already sent stay in ' +
      'their channels. Needs scope posts:write and the permission to edit content. ' +
      COSTS.other,
    route: 'DELETE /projects/{projectId}/posts/{postId}',
    pathIds: POST,
    rest: 'none',
  },
  {
    name: 'publish_post',
    description:
      'Publishes a draft, scheduled or failed post now, to its own targets or to the targets given (which replace them); ' +
      'a channel that already has the post never gets it twice. Answers at once; follow the delivery with get_post. ' +
      'Needs scope posts:publish and the permission to publish. ' +
      COSTS.publish,
    route: 'POST /projects/{projectId}/posts/{postId}/publish',
    pathIds: POST,
    rest: 'body',
  },
  {
    name: 'upload_media_from_url',
    description:
      'Has Herald download an image or video from a public http(s) URL into the project’s media (JPEG, PNG, GIF, WebP, ' +
      'MP4, QuickTime; at most 50 MB) and answers the stored media with its id, to put in a post’s media. ' +
      'Needs scope media:write and the permission to edit content. ' +
      COSTS.upload,
    route: 'POST /projects/{projectId}/media',
    pathIds: PROJECT,
    rest: 'body',
  },
  {
    name: 'start_connection',
    description:
      `Starts connecting a social account to the project through OAuth (${OAUTH_PLATFORMS_TEXT}). ` +
      'Answers authorize_url, a single-use link valid for ' +
      '10 minutes: give it to the person whose account it is; once they allow Herald there, the account joins the project ' +
      '(follow with list_channels). redirect_url (http or https) is where their browser goes at the end. ' +
      'Needs scope accounts:write, the permission to manage accounts, and a live key. ' +
      COSTS.other,
    route: 'POST /projects/{projectId}/connections',
    pathIds: PROJECT,
    rest: 'body',
  },
  {
    name: 'update_media',
    description:
      'Sets the alt text of a stored image (what it shows, for readers who cannot see it; at most 1,500 characters; ' +
      'alt_text: null removes it). Posts not yet delivered send the new text. ' +
      'Needs scope media:write and the permission to edit content. ' +
      COSTS.other,
    route: 'PATCH /projects/{projectId}/media/{mediaId}',
    pathIds: { project_id: 'projectId', media_id: 'mediaId' },
    rest: 'body',
  },
  {
    name: 'get_usage',
    description:
      'Gets the usage of the key’s user: posts created this month (live posts only), projects, active API keys. ' +
      'Needs scope usage:read. ' +
      COSTS.other,
    route: 'GET /usage',
    pathIds: {},
    rest: 'none',
  },
];
