import { Factory, SignedInUser, TestProject } from '../support/factories/factories';
import { startWithTelegram, TelegramWorld } from '../support/factories/telegram-world';

interface Schema {
  $ref?: string;
  type?: string;
  example?: unknown;
  default?: unknown;
  enum?: unknown[];
  items?: Schema;
  properties?: Record<string, Schema>;
  oneOf?: Schema[];
  allOf?: Schema[];
  nullable?: boolean;
}

interface Media {
  schema?: Schema;
  example?: unknown;
  examples?: Record<string, { value: unknown }>;
}

interface Operation {
  security?: Record<string, unknown>[];
  requestBody?: { content: Record<string, Media> };
}

interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}

/**
 * The body Swagger UI's "Try it out" pre-fills: the media type's example (or its first of
 * `examples`) when the document gives one, else one built from the schema, each property's example, else its default or first enum
 * value, else a placeholder of its type ("string", 0, true), arrays with one item.
 */
function prefilled(document: Document, media: Media): unknown {
  if (media.example !== undefined) return media.example;
  const [first] = Object.values(media.examples ?? {});
  if (first) return first.value;
  const build = (schema: Schema | undefined, depth = 0): unknown => {
    if (!schema || depth > 8) return undefined;
    if (schema.$ref)
      return build(document.components.schemas[schema.$ref.split('/').pop()!], depth + 1);
    if (schema.example !== undefined) return schema.example;
    if (schema.default !== undefined) return schema.default;
    if (schema.enum) return schema.enum[0];
    if (schema.oneOf) return build(schema.oneOf[0], depth + 1);
    if (schema.allOf)
      return Object.assign({}, ...schema.allOf.map((part) => build(part, depth + 1)));
    switch (schema.type) {
      case 'object':
      case undefined:
        return Object.fromEntries(
          Object.entries(schema.properties ?? {}).map(([key, value]) => [
            key,
            build(value, depth + 1),
          ]),
        );
      case 'array':
        return [build(schema.items, depth + 1)];
      case 'string':
        return 'string';
      case 'number':
      case 'integer':
        return 0;
      case 'boolean':
        return true;
      default:
        return undefined;
    }
  };
  return build(media.schema);
}

/**
 * Every request body the served document offers as an example ("Try it out" in /api/docs) is one
 * Herald accepts as input: sent to its route, with the caller's own project in the path, it is
 * never refused as malformed (400 validation_failed or invalid_json). What the operation then
 * makes of the example's ids (a channel or post that is not there) is the operation's answer.
 */
describe('OpenAPI: every example body is valid input', () => {
  let world: TelegramWorld;
  let make: Factory;
  let owner: SignedInUser;
  let project: TestProject;
  let key: string;

  beforeAll(async () => {
    world = await startWithTelegram({
      OUTBOUND_ALLOW_CIDRS: '127.0.0.9/32',
      RATE_LIMIT_CREATE_POST: '1000',
      RATE_LIMIT_OTHER: '1000',
      RATE_LIMIT_UPLOAD: '1000',
      RATE_LIMIT_PUBLISH: '1000',
    });
    make = world.make;
    ({ owner, project, key } = await make.owner('Examples'));
  });

  afterAll(async () => {
    await world?.close();
  });

  it('sends each JSON example body of both documents; none is refused as malformed', async () => {
    const { t } = world;
    const document = (await t.http.get('/api/openapi.json').expect(200)).body as Document;
    const refused: string[] = [];
    let sent = 0;
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const media = operation.requestBody?.content['application/json'];
        if (!media) continue;
        const body = prefilled(document, media);
        const url = path
          .replace(/\{(projectId|id|project_id)\}/g, String(project.id))
          .replace(/\{\w+\}/g, '1');
        const publicApi = path.startsWith('/api/public/');
        const res = await t.http[method as 'post' | 'put' | 'patch'](url)
          .set('Authorization', publicApi ? `Bearer ${key}` : owner.auth)
          .send(body as object);
        sent++;
        const code = (res.body as { error?: { code?: string } }).error?.code;
        if (code === 'validation_failed' || code === 'invalid_json')
          refused.push(
            `${method.toUpperCase()} ${path} ${JSON.stringify(body)} → ${res.status} ${JSON.stringify(res.body.error)}`,
          );
      }
    }
    expect(sent).toBeGreaterThan(15);
    expect(refused).toEqual([]);
  });
});
