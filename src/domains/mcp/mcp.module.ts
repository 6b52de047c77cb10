import { Module } from '@nestjs/common';
import { RouteRulesRunner } from '../../access/route-rules-runner';
import { McpController } from './mcp.controller';
import { McpService } from './mcp.service';

/** The MCP server at /api/public/v1/mcp: the public API's routes as tools for AI agents. */
@Module({
  controllers: [McpController],
  providers: [McpService, RouteRulesRunner],
  exports: [McpService],
})
export class McpModule {}
