import type { OpenAPIObject } from '@nestjs/swagger';
import { PUBLIC_API_PREFIX } from '../../access/decorators';
import type { McpTool } from './mcp-tools';

type Schema = Record<string, unknown>;

const COMPONENTS = '#/components/schemas/';
const DEFS = '#/$defs/';

const ID_DESCRIPTIONS: Record<string, string> = {
  project_id: 'Id of the project (from list_projects)',
  post_id: 'Id of the post (from create_post or list_posts)',
};

function routeOf(tool: McpTool): { method: string; path: string } {
  const [verb, path] = tool.route.split(' ');
  return { method: verb.toLowerCase(), path: `/${PUBLIC_API_PREFIX}${path}` };
}

/** From the route's OpenAPI operation: path ids, then query or body fields; refs as `$defs`. */
export function toolInputSchema(tool: McpTool, document: OpenAPIObject): Schema {
  const { method, path } = routeOf(tool);
  const operation = (document.paths[path] as Record<string, Schema> | undefined)?.[method];
  if (!operation) throw new Error(`No OpenAPI operation ${method} ${path} for tool ${tool.name}`);
  const components = (document.components?.schemas ?? {}) as Record<string, Schema>;
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const name of Object.keys(tool.pathIds)) {
    properties[name] = {
      type: 'integer',
      minimum: 1,
      maximum: 2_147_483_647,
      description: ID_DESCRIPTIONS[name],
    };
    required.push(name);
  }
  if (tool.rest === 'query') {
    for (const parameter of (operation.parameters ?? []) as Schema[]) {
      if (parameter.in !== 'query') continue;
      const name = parameter.name as string;
      properties[name] = { ...(parameter.schema as Schema), description: parameter.description };
      if (parameter.required === true) required.push(name);
    }
  }
  if (tool.rest === 'body') {
    const content = (operation.requestBody as Schema | undefined)?.content as
      Record<string, { schema?: Schema }> | undefined;
    const body = resolve(content?.['application/json']?.schema, components);
    Object.assign(properties, body.properties);
    required.push(...((body.required as string[] | undefined) ?? []));
  }
  const schema: Schema = { type: 'object', properties, additionalProperties: false };
  if (required.length > 0) schema.required = required;
  const defs = referenced(schema, components);
  if (Object.keys(defs).length > 0) schema.$defs = defs;
  return rebase(schema) as Schema;
}

function resolve(schema: Schema | undefined, components: Record<string, Schema>): Schema {
  const ref = schema?.$ref;
  if (typeof ref === 'string') return components[ref.slice(COMPONENTS.length)] ?? {};
  return schema ?? {};
}

/** Directly or through another component. */
function referenced(root: unknown, components: Record<string, Schema>): Record<string, Schema> {
  const found: Record<string, Schema> = {};
  const pending: unknown[] = [root];
  while (pending.length > 0) {
    const node = pending.pop();
    if (typeof node !== 'object' || node === null) continue;
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && value.startsWith(COMPONENTS)) {
        const name = value.slice(COMPONENTS.length);
        if (!(name in found) && components[name]) {
          found[name] = components[name];
          pending.push(components[name]);
        }
      } else pending.push(value);
    }
  }
  return found;
}

/** OpenAPI 3.0 into JSON Schema: references to `$defs`, `nullable` into a null type. */
function rebase(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rebase);
  if (typeof node !== 'object' || node === null) return node;
  const { nullable, ...rest } = node as Schema;
  const schema = Object.fromEntries(
    Object.entries(rest)
      .filter(([key, value]) => !(key === 'description' && value === undefined))
      .map(([key, value]) =>
        key === '$ref' && typeof value === 'string' && value.startsWith(COMPONENTS)
          ? [key, DEFS + value.slice(COMPONENTS.length)]
          : [key, rebase(value)],
      ),
  );
  if (nullable !== true) return schema;
  if (typeof schema.type === 'string') return { ...schema, type: [schema.type, 'null'] };
  return { anyOf: [schema, { type: 'null' }] };
}
