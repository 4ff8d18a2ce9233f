import type { z } from 'zod';
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { CommandDeps } from '../../core/commands/run';
import type { FileCall, FileDeps, FileResult } from '../../core/files/types';
import type { Action } from '../../core/modes';
import type { Policy } from '../../core/policy';
import type { ToolName } from '../../core/toolNames';
import { callContext, type ToolExtra } from './callContext';
import { fileOutputShape, toFileToolResult } from './files/result';

/** What a tool's run gets: the pipelines' dependencies for the calling session. */
export interface ToolEnv {
  readonly commands: CommandDeps;
  readonly files: FileDeps;
}

/** One tool: its schemas, annotations, a description from the current policy, what it does, and how it runs. */
export interface ToolDef<S extends z.ZodRawShape = z.ZodRawShape> {
  readonly name: ToolName;
  readonly title: string;
  readonly description: (policy: Policy) => string;
  readonly inputSchema: S;
  readonly outputSchema: z.ZodRawShape;
  readonly annotations: Required<Pick<ToolAnnotations, 'readOnlyHint' | 'destructiveHint' | 'idempotentHint' | 'openWorldHint'>>;
  /** What the tool does, for the mode table: a tool the policy can never allow is not offered. */
  readonly actions: readonly Action[];
  readonly run: (args: z.infer<z.ZodObject<S>>, env: ToolEnv, extra: ToolExtra) => Promise<CallToolResult>;
}

export const defineTool = <S extends z.ZodRawShape>(def: ToolDef<S>): ToolDef<S> => def;

export const READS = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;
export const CHANGES = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false } as const;
export const CHECKED =
  "Paths stay inside the workspace (symbolic links are judged by where they lead); .git internals, the server's own files and protected globs cannot be changed; the change may need approval.";
export const TRANSACTION =
  'The new content is shown as a unified diff before anything is written (and may need approval); then, unless the server runs with --edit-backup none, the old content is saved as the next numbered backup (file.bk1, file.bk2 …, never overwritten); the file is replaced atomically. CRLF line endings and a missing final newline are kept. Nothing is written when the edit fails.';

/** A file tool: its core function on the file pipeline, and which part of the result the agent reads. */
export function fileTool<S extends z.ZodRawShape>(
  def: Omit<ToolDef<S>, 'run' | 'outputSchema' | 'description'> & {
    readonly description: string;
    readonly view: 'content' | 'entries' | 'change';
    readonly call: (deps: FileDeps, call: FileCall, args: z.infer<z.ZodObject<S>>) => Promise<FileResult>;
  },
): ToolDef<S> {
  const { view, call, description, ...rest } = def;
  return {
    ...rest,
    description: () => description,
    outputSchema: fileOutputShape,
    run: async (args, env, extra) => toFileToolResult(await call(env.files, callContext(def.name, extra), args), view),
  };
}
