import { z } from 'zod';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { CommandDeps } from '../../core/commands/run';
import type { FileCall, FileDeps, FileResult } from '../../core/files/types';
import { modeAnswer } from '../../core/modes';
import { backupShort } from '../../core/offers';
import type { Policy } from '../../core/policy';
import type { ToolName } from '../../core/toolNames';
import type { OutputStore } from '../../core/output/spill';
import type { ToolHints } from './annotations';
import type { Place } from './commandResult';
import { callContext, type ToolExtra } from './callContext';
import { fileOutputShape, toFileToolResult } from './files/result';

/** What a tool's run gets: the pipelines' dependencies for the calling session. */
export interface ToolEnv {
  readonly commands: CommandDeps;
  readonly files: FileDeps;
  /** The warning for the first command result of this session; undefined afterwards (it is in the instructions). */
  readonly warnOnce: (warning: string | undefined) => string | undefined;
  /** True the first time this session meets a sandbox hint's cause (each cause is explained once per session). */
  readonly hintOnce: (cause: string) => boolean;
  /** Places an answer's parts within the output budget, keeping what the text does not repeat for readOutput. */
  readonly place: Place;
  /** What this session kept for readOutput. */
  readonly outputs: OutputStore;
}

/** One tool: its schemas, annotations, a description from the current policy, what it does, and how it runs. */
export interface ToolDef<S extends z.ZodRawShape = z.ZodRawShape> {
  readonly name: ToolName;
  readonly title: string;
  readonly description: (policy: Policy) => string;
  readonly inputSchema: S;
  /**
   * The shape of structuredContent. NOT published in tools/list (output schemas were half of its 30 KB); docs/tools.md
   * lists the fields and the tests check every result against this shape. Absent: the tool answers in text only
   * (readOutput, whose pages every client must be able to read).
   */
  readonly outputSchema?: z.ZodRawShape;
  /** Fixed, or (command tools) computed from the live policy and sandbox: annotations.ts. */
  readonly annotations: ToolHints;
  readonly run: (args: z.infer<z.ZodObject<S>>, env: ToolEnv, extra: ToolExtra) => Promise<CallToolResult>;
}

export const defineTool = <S extends z.ZodRawShape>(def: ToolDef<S>): ToolDef<S> => def;

export const READS = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;
export const CHANGES = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false } as const;
/**
 * The shared sentences are short on purpose: tools/list travels with every model request (the whole list is kept
 * under 10 KB, test/integration/agentResults.test.ts). The long form is in the server instructions. Each says
 * only what the live policy does: approval where the mode asks, the backup the setting keeps.
 */
const approval = (policy: Policy) => (modeAnswer(policy.mode, 'fileChange') === 'ask' ? ' (after approval)' : '');
export const CHECKED = (policy: Policy) => `Workspace only, not .git or protected files${approval(policy)}.`;
export const TRANSACTION = (policy: Policy) => `Shows a diff first${approval(policy)}, replaces atomically (${backupShort(policy)}); nothing is written if it fails.`;

/** A file tool: its core function on the file pipeline, and which part of the result the agent reads. */
export function fileTool<S extends z.ZodRawShape>(
  def: Omit<ToolDef<S>, 'run' | 'outputSchema' | 'description'> & {
    readonly description: string | ((policy: Policy) => string);
    readonly view: 'content' | 'entries' | 'change';
    readonly call: (deps: FileDeps, call: FileCall, args: z.infer<z.ZodObject<S>>) => Promise<FileResult>;
  },
): ToolDef<S> {
  const { view, call, description, ...rest } = def;
  return {
    ...rest,
    description: typeof description === 'string' ? () => description : description,
    outputSchema: fileOutputShape,
    run: async (args, env, extra) => toFileToolResult(await call(env.files, callContext(def.name, extra), args), view, env.place),
  };
}

/** The input of a tool that takes a file from one path to another (copyFile, moveRenameFile). */
export const FROM_TO = {
  source: z.string().describe('Workspace-relative.'),
  destination: z.string().describe('Workspace-relative.'),
  overwrite: z.boolean().default(false),
};
