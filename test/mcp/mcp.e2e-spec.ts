import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import type { AddressInfo } from 'node:net';
import { MCP_TOOLS } from '../../src/domains/mcp/mcp-tools';
import type { SignedInUser, TestChannel, TestProject } from '../support/factories/factories';
import { fixture } from '../support/factories/media-helpers';
import { RemoteFileServer } from '../support/remote-file-server';
import { registeredRoutes } from '../support/routes';
import { addMember } from '../support/factories/team';
import { startWithTelegram, TelegramWorld } from '../support/factories/telegram-world';

interface ToolAnswer {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  content: { type: string; text?: string }[];
}

interface Connection {
  client: Client;
  /** The headers of the last HTTP answer the client received. */
  lastHeaders(): Headers;
  call(name: string, args?: Record<string, unknown>): Promise<ToolAnswer>;
  close(): Promise<void>;
}

const CREATE_LIMIT = 2;

/**
 * The MCP server, driven by the protocol SDK's own client over HTTP: every tool reaches what its
 * REST route reaches, and is refused wherever that route refuses, with the same codes.
 */
describe('MCP server', () => {
  let world: TelegramWorld;
  let files: RemoteFileServer;
  let url: string;
  let owner: SignedInUser;
  let project: TestProject;
  let channel: TestChannel;
  let key: string;
  let mcp: Connection;
  const open: Connection[] = [];

  async function connect(apiKey: string | null): Promise<Connection> {
    let headers = new Headers();
    const transport = new StreamableHTTPClientTransport(new URL(url), {
      requestInit: apiKey ? { headers: { Authorization: `Bearer ${apiKey}` } } : {},
      fetch: async (input, init) => {
        const res = await fetch(input, init);
        headers = res.headers;
        return res;
      },
    });
    const client = new Client({ name: 'herald-test', version: '1' });
    await client.connect(transport);
    const connection: Connection = {
      client,
      lastHeaders: () => headers,
      call: async (name, args = {}) =>
        (await client.callTool({ name, arguments: args })) as ToolAnswer,
      close: () => client.close(),
    };
    open.push(connection);
    return connection;
  }

  const errorOf = (answer: ToolAnswer) => {
    expect(answer.isError).toBe(true);
    const body = answer.structuredContent as { error: { code: string; message: string } };
    expect(JSON.parse(answer.content[0].text ?? '')).toEqual(body);
    return body.error;
  };

  const rest = (path: string, apiKey = key) =>
    world.t.http.get(`/api/public/v1${path}`).set('Authorization', `Bearer ${apiKey}`);

  const postCount = async () =>
    (await world.t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM posts')).rows[0].n;

  beforeAll(async () => {
    files = new RemoteFileServer('127.0.0.2');
    files.route('/sample.png', (_req, res) =>
      res.writeHead(200, { 'content-type': 'image/png' }).end(fixture('sample.png')),
    );
    await files.start();
    world = await startWithTelegram({
      MEDIA_FETCH_ALLOW_CIDRS: '127.0.0.2/32',
      RATE_LIMIT_CREATE_POST: String(CREATE_LIMIT),
    });
    await world.t.app.listen(0, '127.0.0.1');
    const { port } = world.t.app.getHttpServer().address() as AddressInfo;
    url = `http://127.0.0.1:${port}/api/public/v1/mcp`;
    let channels: TestChannel[];
    ({ owner, project, key, channels } = await world.make.ownerWithChannels('Agents'));
    channel = channels[0];
    mcp = await connect(key);
  });

  afterAll(async () => {
    for (const connection of open) await connection.close().catch(() => undefined);
    await world?.close();
    await files?.stop();
  });

  describe('tools', () => {
    it('lists every tool with a description and an input schema drawn from its route', async () => {
      const { tools } = await mcp.client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(
        [
          'create_post',
          'delete_post',
          'get_post',
          'get_usage',
          'list_channels',
          'list_posts',
          'list_projects',
          'publish_post',
          'start_connection',
          'update_post',
          'update_media',
          'upload_media_from_url',
          'validate_post',
        ].sort(),
      );
      const ajv = new Ajv({ strict: false });
      addFormats(ajv);
      for (const tool of tools) {
        expect(tool.description).toMatch(/rate limit/);
        expect(tool.inputSchema.type).toBe('object');
        expect(() => ajv.compile(tool.inputSchema)).not.toThrow();
      }
      const create = tools.find((tool) => tool.name === 'create_post')!;
      expect(create.inputSchema.required).toEqual(['project_id']);
      expect(Object.keys(create.inputSchema.properties ?? {})).toEqual(
        expect.arrayContaining([
          'project_id',
          'text',
          'targets',
          'media_ids',
          'thread',
          'split_long_text',
          'publish_now',
        ]),
      );
      const list = tools.find((tool) => tool.name === 'list_posts')!;
      expect(Object.keys(list.inputSchema.properties ?? {}).sort()).toEqual(
        ['cursor', 'limit', 'project_id', 'status'].sort(),
      );
      // JSON Schema, not OpenAPI: a field that may be null says so with its type.
      const update = tools.find((tool) => tool.name === 'update_post')!;
      expect(update.inputSchema.properties?.scheduled_at).toMatchObject({
        type: ['string', 'null'],
      });
      expect(JSON.stringify(tools)).not.toMatch(/"nullable"|#\/components\//);
      const validCreate = ajv.compile(create.inputSchema);
      expect(
        validCreate({ project_id: 1, text: 'Hi', targets: [{ channel_ref: 'telegram:1:-100' }] }),
      ).toBe(true);
      expect(validCreate({ project_id: 1, text: 'Hi', thread: [{ text: 'A reply' }] })).toBe(true);
      expect(validCreate({ project_id: 1, text: 'Hi', thread: [{ colour: 'red' }] })).toBe(false);
      expect(validCreate({ project_id: 1, owner: 2 })).toBe(false);
      const upload = tools.find((tool) => tool.name === 'upload_media_from_url')!;
      expect(upload.inputSchema.required).toEqual(['project_id', 'url']);
    });

    it('answers each tool as its REST route answers', async () => {
      const projects = await mcp.call('list_projects');
      expect(projects.isError).toBeUndefined();
      expect(projects.structuredContent).toEqual((await rest('/projects').expect(200)).body);

      const channels = await mcp.call('list_channels', { project_id: project.id });
      expect(channels.structuredContent).toEqual(
        (await rest(`/projects/${project.id}/channels`).expect(200)).body,
      );

      const media = await mcp.call('upload_media_from_url', {
        project_id: project.id,
        url: `http://127.0.0.2:${files.port}/sample.png`,
      });
      const mediaId = (media.structuredContent as { items: { id: number }[] }).items[0].id;
      expect(mediaId).toBeGreaterThan(0);
      const described = await mcp.call('update_media', {
        project_id: project.id,
        media_id: mediaId,
        alt_text: 'A square of red',
      });
      expect(described.structuredContent).toMatchObject({
        id: mediaId,
        alt_text: 'A square of red',
      });

      const post = {
        project_id: project.id,
        text: 'Written by an agent',
        targets: [{ channel_ref: channel.id }],
        media_ids: [mediaId],
        thread: [{ text: 'And its reply' }],
      };
      const checked = await mcp.call('validate_post', post);
      expect(checked.structuredContent).toMatchObject({
        valid: true,
        errors: [],
        targets: [{ messages: 2, messages_preview: ['Written by an agent', 'And its reply'] }],
      });
      expect(await postCount()).toBe(0);

      const created = await mcp.call('create_post', post);
      const postId = (created.structuredContent as { id: number }).id;
      expect(created.structuredContent).toMatchObject({ status: 'draft', test: false });

      const got = await mcp.call('get_post', { project_id: project.id, post_id: postId });
      expect(got.structuredContent).toEqual(
        (await rest(`/projects/${project.id}/posts/${postId}`).expect(200)).body,
      );

      const listed = await mcp.call('list_posts', { project_id: project.id, limit: 5 });
      expect(listed.structuredContent).toEqual(
        (await rest(`/projects/${project.id}/posts?limit=5`).expect(200)).body,
      );

      const updated = await mcp.call('update_post', {
        project_id: project.id,
        post_id: postId,
        text: 'Rewritten by an agent',
      });
      expect(updated.structuredContent).toMatchObject({
        id: postId,
        text: 'Rewritten by an agent',
      });

      const published = await mcp.call('publish_post', { project_id: project.id, post_id: postId });
      expect(published.isError).toBeUndefined();
      expect(published.structuredContent).toMatchObject({ id: postId });

      const other = await mcp.call('create_post', { project_id: project.id, text: 'Short-lived' });
      const otherId = (other.structuredContent as { id: number }).id;
      const deleted = await mcp.call('delete_post', { project_id: project.id, post_id: otherId });
      expect(deleted.isError).toBeUndefined();
      await rest(`/projects/${project.id}/posts/${otherId}`).expect(404);

      const usage = await mcp.call('get_usage');
      expect(usage.structuredContent).toEqual((await rest('/usage').expect(200)).body);
      // Each call carried the headers of its own category's window.
      expect(mcp.lastHeaders().get('x-ratelimit-limit')).toBe('30');
    });
  });

  describe('refusals, as on REST', () => {
    it('counts a protocol message that calls no tool in the category other', async () => {
      const fresh = await connect(await world.make.apiKey(owner));
      await fresh.client.listTools();
      const first = fresh.lastHeaders();
      expect(first.get('x-ratelimit-limit')).toBe('30');
      await fresh.client.listTools();
      const remaining = Number(fresh.lastHeaders().get('x-ratelimit-remaining'));
      expect(remaining).toBe(Number(first.get('x-ratelimit-remaining')) - 1);
    });

    it('refuses a request without a key before any message is read', async () => {
      await expect(connect(null)).rejects.toThrow(/unauthorized/);
      const res = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(res.status).toBe(401);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
    });

    it('refuses a key without the scope, and stores nothing', async () => {
      const reader = await connect(await world.make.apiKey(owner, { scopes: ['projects:read'] }));
      const before = await postCount();
      const error = errorOf(
        await reader.call('create_post', { project_id: project.id, text: 'x' }),
      );
      expect(error.code).toBe('insufficient_scope');
      // The extra scope of a create that publishes is asked for too.
      const writer = await connect(await world.make.apiKey(owner, { scopes: ['posts:write'] }));
      const publishing = await writer.call('create_post', {
        project_id: project.id,
        text: 'x',
        publish_now: true,
      });
      expect(errorOf(publishing)).toMatchObject({ code: 'insufficient_scope' });
      expect(await postCount()).toBe(before);
    });

    it("answers a stranger's project as one that does not exist", async () => {
      const stranger = await world.make.owner('Not yours');
      const mcp = await connect(await world.make.apiKey(owner));
      for (const [tool, args] of [
        ['list_channels', {}],
        ['list_posts', {}],
        ['create_post', { text: 'x' }],
      ] as const) {
        const answer = await mcp.call(tool, { project_id: stranger.project.id, ...args });
        expect([tool, errorOf(answer).code]).toEqual([tool, 'project_not_found']);
      }
    });

    it("refuses an observer's publish with the permission's message", async () => {
      const observer = await world.make.admin('Observer');
      await addMember(world.t, owner, project, observer, 'observer');
      const as = await connect(await world.make.apiKey(observer));
      const mcp = await connect(await world.make.apiKey(owner));
      const draft = await mcp.call('create_post', { project_id: project.id, text: 'Observed' });
      const postId = (draft.structuredContent as { id: number }).id;
      const error = errorOf(
        await as.call('publish_post', { project_id: project.id, post_id: postId }),
      );
      expect(error).toEqual({ code: 'forbidden', message: 'Недостаточно прав для публикации' });
      const seen = await as.call('get_post', { project_id: project.id, post_id: postId });
      expect(seen.structuredContent).toMatchObject({ id: postId, status: 'draft' });
    });

    it('keeps test and live posts apart: a test key does not see a live post', async () => {
      const { rows } = await world.t.db.query<{ id: number }>(
        'SELECT id FROM posts WHERE test = false ORDER BY id LIMIT 1',
      );
      const sandbox = await connect(await world.make.apiKey(owner, { mode: 'test' }));
      const args = { project_id: project.id, post_id: rows[0].id };
      expect(errorOf(await sandbox.call('get_post', args)).code).toBe('post_not_found');
      expect(errorOf(await sandbox.call('delete_post', args)).code).toBe('post_not_found');
      const own = await sandbox.call('create_post', { project_id: project.id, text: 'Sandbox' });
      expect(own.structuredContent).toMatchObject({ test: true });
    });

    it('counts create_post in its own category, and says so on the HTTP answer', async () => {
      const limited = await connect(await world.make.apiKey(owner));
      for (let i = 0; i < CREATE_LIMIT; i++) {
        const ok = await limited.call('create_post', { project_id: project.id, text: `n${i}` });
        expect(ok.isError).toBeUndefined();
      }
      const before = await postCount();
      const refused = await limited.call('create_post', { project_id: project.id, text: 'over' });
      expect(errorOf(refused).code).toBe('rate_limit_exceeded');
      const headers = limited.lastHeaders();
      expect(headers.get('x-ratelimit-limit')).toBe(String(CREATE_LIMIT));
      expect(headers.get('x-ratelimit-remaining')).toBe('0');
      expect(Number(headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000 - 1);
      expect(Number(headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(await postCount()).toBe(before);
      // Another category still has room.
      expect(
        (await limited.call('list_posts', { project_id: project.id })).isError,
      ).toBeUndefined();
    });
  });

  describe('hostile arguments', () => {
    // A key of their own: the refused creates count against its create limit, as on REST.
    let hostileKey: string;
    let mcp: Connection;
    beforeAll(async () => {
      hostileKey = await world.make.apiKey(owner);
      mcp = await connect(hostileKey);
    });

    it('refuses odd ids as the route refuses them', async () => {
      for (const odd of ['01', -1, 2 ** 31, '1 ', 1.5, null, { id: 1 }]) {
        const post = await mcp.call('get_post', { project_id: project.id, post_id: odd });
        expect([odd, errorOf(post).code]).toEqual([odd, 'post_not_found']);
        const channels = await mcp.call('list_channels', { project_id: odd });
        expect([odd, errorOf(channels).code]).toEqual([odd, 'project_not_found']);
      }
    });

    it('refuses text PostgreSQL cannot store, and fields the route does not take', async () => {
      const before = await postCount();
      const nul = await mcp.call('create_post', { project_id: project.id, text: 'a\u0000b' });
      expect(errorOf(nul).code).toBe('validation_failed');
      const key = await mcp.call('validate_post', { project_id: project.id, ['te\u0000xt']: 'a' });
      expect(errorOf(key).code).toBe('validation_failed');
      const extra = await mcp.call('create_post', { project_id: project.id, text: 'a', owner: 1 });
      expect(errorOf(extra)).toMatchObject({
        code: 'validation_failed',
        message: 'owner: is not allowed',
      });
      const proto = await mcp.call(
        'validate_post',
        JSON.parse(`{"project_id":${project.id},"__proto__":{"admin":true}}`) as Record<
          string,
          unknown
        >,
      );
      expect(errorOf(proto)).toMatchObject({
        code: 'validation_failed',
        message: '__proto__: is not allowed',
      });
      const query = await mcp.call('list_posts', { project_id: project.id, status: 'x\u0000' });
      expect(errorOf(query).code).toBe('validation_failed');
      expect(await postCount()).toBe(before);
    });

    it('refuses deep nesting as the body parser refuses it on REST', async () => {
      let deep: unknown = 'x';
      for (let i = 0; i < 40; i++) deep = [deep];
      const message = {
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'create_post', arguments: { project_id: project.id, text: deep } },
      };
      const res = await fetch(url, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${hostileKey}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify(message),
      });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('invalid_json');
      const onRest = await world.t.http
        .post(`/api/public/v1/projects/${project.id}/posts`)
        .set('Authorization', `Bearer ${await world.make.apiKey(owner)}`)
        .send({ text: deep });
      expect(onRest.body.error.code).toBe('invalid_json');
    });

    it('answers what the stateless transport does not take in the error shape', async () => {
      const auth = `Bearer ${hostileKey}`;
      const stream = await world.t.http.get('/api/public/v1/mcp').set('Authorization', auth);
      expect([stream.status, stream.body.error.code]).toEqual([405, 'method_not_allowed']);
      const end = await world.t.http.delete('/api/public/v1/mcp').set('Authorization', auth);
      expect([end.status, end.body.error.code]).toEqual([405, 'method_not_allowed']);
      const jsonOnly = await world.t.http
        .post('/api/public/v1/mcp')
        .set('Authorization', auth)
        .set('Accept', 'application/json')
        .send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
      expect([jsonOnly.status, jsonOnly.body.error.code]).toEqual([406, 'not_acceptable']);
      const notification = await world.t.http
        .post('/api/public/v1/mcp')
        .set('Authorization', auth)
        .set('Accept', 'application/json, text/event-stream')
        .send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      expect(notification.status).toBe(202);
    });

    it('answers an unknown tool and arguments with no place as the protocol says', async () => {
      const invalid = expect.objectContaining({ code: ErrorCode.InvalidParams });
      await expect(mcp.call('drop_database')).rejects.toEqual(invalid);
      await expect(mcp.call('get_post', { post_id: 1 })).rejects.toEqual(invalid);
      await expect(mcp.call('get_usage', { user_id: 1 })).rejects.toBeInstanceOf(McpError);
    });
  });

  it('declares every tool by a route the route walk knows', () => {
    const known = new Set(registeredRoutes(world.t.app).map((r) => r.route));
    for (const tool of MCP_TOOLS) {
      const [method, path] = tool.route.split(' ');
      const route = `${method} /api/public/v1${path.replace(/\{(\w+)\}/g, ':$1')}`;
      expect([tool.name, known.has(route)]).toEqual([tool.name, true]);
    }
  });
});
