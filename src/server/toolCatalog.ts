import type { McpServer, RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { AnyObjectSchema } from '@modelcontextprotocol/sdk/server/zod-compat.js';
import { toJsonSchemaCompat } from '@modelcontextprotocol/sdk/server/zod-json-schema-compat.js';
import { ListToolsRequestSchema, type ListToolsResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Policy } from '../core/policy';
import type { ToolDef } from './tools/define';
import { acceptNullAsOmitted } from './tools/nullArgs';

/**
 * What every MCP session offers, computed once instead of once per session (or, for the JSON Schemas, once per
 * tools/list): the SDK would rebuild each tool's zod object per session and convert all of them to JSON Schema on
 * every tools/list, ~45 ms for the fourteen tools on a loaded machine, paid again by every session a client opens.
 * Tool schemas never change while the process runs, so they are per process; descriptions depend on the policy,
 * which is swapped whole on a change, so they are per policy object. Which tools are enabled stays per session,
 * driven by the live policy (registerTools), and is read at each tools/list.
 */

interface Schemas {
  /** The zod object the SDK validates arguments with (null accepted as omitted: tools/nullArgs.ts). */
  readonly input: AnyObjectSchema;
}
interface JsonSchemas {
  /** The same as JSON Schema, exactly as the SDK's own tools/list handler converts it; frozen, shared. */
  readonly inputJson: Tool['inputSchema'];
}

const schemas = new WeakMap<ToolDef, Schemas>();
const jsonSchemas = new WeakMap<ToolDef, JsonSchemas>();
const descriptions = new WeakMap<Policy, Map<ToolDef, string>>();

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/** The tool's schemas, built on first use and then shared by every session of this process. */
export function toolSchemas(def: ToolDef): Schemas {
  let s = schemas.get(def);
  if (!s) {
    s = { input: acceptNullAsOmitted(def.inputSchema) as unknown as AnyObjectSchema };
    schemas.set(def, s);
  }
  return s;
}

/** Its JSON Schemas, converted at the first tools/list of the process (not at start: ~15 ms before being ready). */
function toolJsonSchemas(def: ToolDef): JsonSchemas {
  let j = jsonSchemas.get(def);
  if (!j) {
    const { input } = toolSchemas(def);
    // Without "$schema": 52 bytes per tool in every tools/list. The schemas use only keywords that read the same in
    // draft-07 (what the SDK names) and in JSON Schema 2020-12 (MCP's dialect when none is named).
    const { $schema: _dialect, ...json } = toJsonSchemaCompat(input, { strictUnions: true, pipeStrategy: 'input' }) as Record<string, unknown>;
    j = { inputJson: deepFreeze(json) as Tool['inputSchema'] };
    jsonSchemas.set(def, j);
  }
  return j;
}

/** The tool's description under `policy`, computed once per policy object for all sessions. */
export function toolDescription(def: ToolDef, policy: Policy): string {
  let m = descriptions.get(policy);
  if (!m) descriptions.set(policy, (m = new Map()));
  let d = m.get(def);
  if (d === undefined) m.set(def, (d = def.description(policy)));
  return d;
}

/**
 * Replaces the SDK's tools/list handler of one session with one that answers from the cached JSON Schemas. The
 * answer is the SDK's own shape less the schemas' `$schema` (test/integration/toolCatalog.test.ts compares the two); which tools are listed
 * and their descriptions are read from the session's registered tools at each request, so enable()/disable()/
 * update() on a policy change show at once.
 */
export function serveCachedToolList(server: McpServer, registered: ReadonlyArray<{ readonly def: ToolDef; readonly tool: RegisteredTool }>): void {
  server.server.setRequestHandler(ListToolsRequestSchema, (): ListToolsResult => ({
    tools: registered
      .filter((r) => r.tool.enabled)
      .map(({ def, tool }) => {
        const s = toolJsonSchemas(def);
        return {
          name: def.name,
          title: tool.title,
          description: tool.description,
          inputSchema: s.inputJson,
          annotations: tool.annotations,
          ...(tool.execution && { execution: tool.execution }),
          ...(tool._meta && { _meta: tool._meta }),
        };
      }),
  }));
}
