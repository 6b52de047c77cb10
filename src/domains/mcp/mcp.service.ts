import { Injectable, Logger } from '@nestjs/common';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { OpenAPIObject } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { toAppError } from '../../http/errors/all-exceptions.filter';
import { errorBody } from '../../http/errors/error-codes';
import { PLATFORM_DESCRIPTORS } from '../platforms/platforms';
import { MCP_TOOLS, McpTool } from './mcp-tools';
import { RouteCaller, type RouteInput } from './route-call';
import { toolInputSchema } from './tool-schemas';

const INSTRUCTIONS =
  `Herald publishes posts to channels (${PLATFORM_DESCRIPTORS.map((platform) => platform.displayName).join(', ')}). Start with list_projects, then list_channels for targets. ` +
  'Check a post with validate_post before create_post. Every tool is limited per API key and minute by category; ' +
  'a refused call is a tool error with {error: {code, message}}, e.g. rate_limit_exceeded.';

/** A stateless server per request; each tool runs its REST route in-process, with its checks. */
@Injectable()
export class McpService {
  private readonly logger = new Logger('Mcp');
  private readonly byName = new Map(MCP_TOOLS.map((tool) => [tool.name, tool]));
  private tools: Tool[] | undefined;

  constructor(private readonly routes: RouteCaller) {}

  describeTools(document: OpenAPIObject): void {
    this.tools = MCP_TOOLS.map((tool) => ({
      name: tool.name,
      description: tool.description,
      inputSchema: toolInputSchema(tool, document) as Tool['inputSchema'],
    }));
  }

  server(request: Request, response: Response): Server {
    const server = new Server(
      { name: 'herald', version: '1' },
      { capabilities: { tools: {} }, instructions: INSTRUCTIONS },
    );
    server.setRequestHandler(ListToolsRequestSchema, () => {
      if (!this.tools) throw new Error('MCP tools were not described');
      return { tools: this.tools };
    });
    server.setRequestHandler(CallToolRequestSchema, ({ params }) => {
      const tool = this.byName.get(params.name);
      if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${params.name}`);
      return this.call(tool, argumentsAsSent(request) ?? params.arguments ?? {}, request, response);
    });
    return server;
  }

  private async call(
    tool: McpTool,
    args: Record<string, unknown>,
    request: Request,
    response: Response,
  ): Promise<CallToolResult> {
    const input = routeInput(tool, args);
    let answer;
    try {
      answer = await this.routes.call(tool.route, request, input);
    } catch (thrown) {
      const error = toAppError(thrown, this.logger, (request as { id?: string }).id);
      return toolError(errorBody(error));
    }
    for (const [name, value] of Object.entries(answer.headers)) response.setHeader(name, value);
    if (answer.status >= 400) return toolError(answer.body);
    if (answer.body === undefined) return { content: [{ type: 'text', text: 'Done' }] };
    return {
      content: [{ type: 'text', text: JSON.stringify(answer.body) }],
      structuredContent: answer.body as Record<string, unknown>,
    };
  }
}

function toolError(body: unknown): CallToolResult {
  return {
    isError: true,
    content: [{ type: 'text', text: JSON.stringify(body) }],
    structuredContent: body as Record<string, unknown>,
  };
}

/** The SDK's parse loses a `__proto__` key, which the input checks must see to refuse. */
function argumentsAsSent(request: Request): Record<string, unknown> | undefined {
  const args = (request.body as { params?: { arguments?: unknown } } | undefined)?.params
    ?.arguments;
  return typeof args === 'object' && args !== null && !Array.isArray(args)
    ? (args as Record<string, unknown>)
    : undefined;
}

/** Path ids go as text, so `01` is refused as its route refuses it; extras: invalid params. */
function routeInput(tool: McpTool, args: Record<string, unknown>): RouteInput {
  const rest: Record<string, unknown> = { ...args };
  const params: Record<string, string> = {};
  for (const [name, param] of Object.entries(tool.pathIds)) {
    const value = rest[name];
    if (value === undefined)
      throw new McpError(ErrorCode.InvalidParams, `${tool.name}: ${name} is required`);
    params[param] = typeof value === 'string' ? value : JSON.stringify(value);
    delete rest[name];
  }
  if (tool.rest === 'body') return { params, query: {}, body: rest };
  if (tool.rest === 'query') return { params, query: rest, body: undefined };
  const unknown = Object.keys(rest);
  if (unknown.length > 0)
    throw new McpError(
      ErrorCode.InvalidParams,
      `${tool.name} takes no argument ${unknown.join(', ')}`,
    );
  return { params, query: {}, body: undefined };
}
