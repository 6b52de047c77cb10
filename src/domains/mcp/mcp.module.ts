import { Module } from '@nestjs/common';
import { RouteCaller } from './route-call';
import { McpController } from './mcp.controller';
import { McpService } from './mcp.service';

/** The MCP server at /api/public/v1/mcp: the public API's routes as tools for AI agents. */
@Module({
  controllers: [McpController],
  providers: [McpService, RouteCaller],
  exports: [McpService],
})
export class McpModule {}
