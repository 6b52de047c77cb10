import { Controller, Delete, Get, HttpCode, Post, Req, Res } from '@nestjs/common';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  ApiAcceptedResponse,
  ApiBody,
  ApiExcludeEndpoint,
  ApiExtension,
  ApiOkResponse,
  ApiOperation,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { PUBLIC_API_PREFIX, PublicApi } from '../../access/decorators';
import { ApiErrors } from '../../http/errors/api-errors.decorator';
import { AppError } from '../../http/errors/error-codes';
import { isToolCall, MCP_TOOLS } from './mcp-tools';
import { McpService } from './mcp.service';

const JSON_RPC_MESSAGE = {
  type: 'object',
  description: 'A JSON-RPC 2.0 message of the Model Context Protocol',
  required: ['jsonrpc'],
  properties: { jsonrpc: { type: 'string', enum: ['2.0'] } },
};

/** Streamable HTTP, stateless: a server per POST; tool calls run their routes' checks. */
@Controller(`${PUBLIC_API_PREFIX}/mcp`)
@PublicApi({ rulesPerOperation: isToolCall })
export class McpController {
  constructor(private readonly mcp: McpService) {}

  @Post()
  @HttpCode(200)
  @ApiExtension('x-rules-per-operation', true)
  @ApiOperation({
    summary: 'Model Context Protocol server (Streamable HTTP, stateless) for AI agents',
    description:
      'Send JSON-RPC messages with `Accept: application/json, text/event-stream`; answers are JSON. Tools: ' +
      MCP_TOOLS.map((tool) => tool.name).join(', ') +
      '. Each tool call passes the checks of its REST route (rate limit in that route’s category, scopes, project, ' +
      'member permission, body validation, test mode) and a refusal is a tool result with `isError: true` and ' +
      '`{error: {code, message}}`; the rate-limit headers of a call are on this answer. GET and DELETE answer ' +
      '405: a stateless server streams nothing and keeps no session.',
  })
  @ApiBody({ schema: JSON_RPC_MESSAGE })
  @ApiOkResponse({ schema: JSON_RPC_MESSAGE, description: 'The JSON-RPC response' })
  @ApiAcceptedResponse({ description: 'A notification, taken; no body' })
  @ApiErrors('not_acceptable')
  async handle(@Req() request: Request, @Res() response: Response): Promise<void> {
    // Refused in Herald's error shape; without a JSON body the stream is already consumed.
    if (request.body === undefined) {
      if (request.is('application/json') === false)
        throw new AppError(
          'unsupported_media_type',
          'Send the JSON-RPC message as application/json',
        );
      throw new AppError('validation_failed', 'Request body must be a JSON-RPC message');
    }
    const accept = request.headers.accept ?? '';
    if (!accept.includes('application/json') || !accept.includes('text/event-stream'))
      throw new AppError(
        'not_acceptable',
        'Send Accept: application/json, text/event-stream, as the protocol requires',
      );
    const server = this.mcp.server(request, response);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    response.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request, response, request.body);
  }

  // GET and DELETE: 405, as the protocol asks of a stateless server; left out of the document.
  @Get()
  @ApiExcludeEndpoint()
  stream(): never {
    throw notAllowed();
  }

  @Delete()
  @ApiExcludeEndpoint()
  endSession(): never {
    throw notAllowed();
  }
}

function notAllowed(): AppError {
  return new AppError('method_not_allowed', 'The MCP endpoint takes POST only', undefined, {
    Allow: 'POST',
  });
}
