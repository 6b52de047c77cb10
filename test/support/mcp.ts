import type { Response, Test } from 'supertest';
import { errorStatus, type ErrorCode } from '../../src/http/errors/error-codes';

export const MCP_PATH = '/api/public/v1/mcp';
/** What the protocol's Streamable HTTP transport requires of every POST. */
const MCP_ACCEPT = 'application/json, text/event-stream';

/** A `tools/call` message, its arguments given as raw JSON (hostile text survives as sent). */
function toolCallMessage(name: string, rawArguments: string): string {
  return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":${JSON.stringify(name)},"arguments":${rawArguments}}}`;
}

/** Sends one tool call to the MCP endpoint without the protocol's handshake (it is stateless). */
export function sendToolCall(request: Test, name: string, rawArguments: string): Test {
  return request
    .set('Content-Type', 'application/json')
    .set('Accept', MCP_ACCEPT)
    .send(toolCallMessage(name, rawArguments));
}

export interface Answer {
  status: number;
  body: unknown;
}

/**
 * A tool call's answer read as the REST answer it stands for: a tool error becomes its code's
 * status and `{error}` body, a result its structured content under `success`; an HTTP refusal
 * before any tool (no key) stays as it is.
 */
export function restAnswerOf(res: Response, success = 200): Answer {
  const result = (res.body as { result?: { isError?: boolean; structuredContent?: unknown } })
    .result;
  if (res.status !== 200 || !result) return res;
  if (!result.isError) return { status: success, body: result.structuredContent ?? {} };
  const error = (result.structuredContent as { error: { code: ErrorCode } }).error;
  return { status: errorStatus(error.code), body: result.structuredContent };
}
