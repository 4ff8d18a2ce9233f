import { AsyncLocalStorage } from 'node:async_hooks';
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';

/**
 * The MCP request a tool call is answering, for whatever asks the same client during that call (elicitation).
 * Streamable HTTP carries a server request that names its related request on that request's own response stream;
 * one that does not goes to the optional standalone GET stream, and is DROPPED when the client has not opened it
 * (yet, or at all) — the call then waits for the approval timeout. Set by the tool registration loop for the
 * duration of each call.
 */
export const relatedRequest = new AsyncLocalStorage<RequestId>();
