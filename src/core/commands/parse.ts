import { ToolError } from '../errors';
import { familyOf } from './rules/families';

/**
 * Splits a request's argv into pipeline stages and redirects. Operators are DISCRETE elements only: `|`, `<`, `>`,
 * `>>`. `a|b` or `>file` inside one element is plain data (there is no shell), which is what the caller wrote.
 * `<` may only feed the first stage, `>`/`>>` only take the last stage's output, each at most once.
 */
export interface ParsedCommand {
  readonly stages: readonly (readonly string[])[];
  readonly stdinFile?: string;
  readonly stdoutFile?: { readonly path: string; readonly append: boolean };
}

export const OPERATORS = new Set(['|', '<', '>', '>>']);

/**
 * Shell list operators as discrete elements. There is no shell, so they cannot work; passing them on as data
 * would hand `make` a target called "&&". mcp-shell-server refuses them too. Inside an element (`a;b`) they
 * stay data. Literal calls (cmdshellmcp) keep every element as data.
 */
export const LIST_OPERATORS: Readonly<Record<string, string>> = {
  ';': 'runs commands one after another',
  '&&': 'runs the next command when this one succeeds',
  '||': 'runs the next command when this one fails',
  '&': 'runs a command in the background',
};

/** find's primaries that take a command ending in ";" (or "+"). */
const FIND_COMMANDS = new Set(['-exec', '-execdir', '-ok', '-okdir']);

/** Surrounding white space of the program name is not part of it (mcp-shell-server strips it too). */
function stripProgram(stage: string[]): string[] {
  if (stage.length > 0) stage[0] = stage[0]!.trim();
  return stage;
}

export function parseCommand(argv: readonly string[], options: { literal?: boolean } = {}): ParsedCommand {
  if (!Array.isArray(argv) || argv.length === 0) throw new ToolError('BAD_REQUEST', 'The command is empty: give at least the program name.', 'request.empty');
  for (const [i, a] of argv.entries()) {
    if (typeof a !== 'string') throw new ToolError('BAD_REQUEST', `Command element ${i} is not a string.`, 'request.type');
    if (a.includes('\0')) throw new ToolError('BAD_REQUEST', `Command element ${i} contains a NUL byte.`, 'request.nul');
  }
  if (options.literal) return { stages: [stripProgram([...argv])] };
  const stages: string[][] = [[]];
  let stdinFile: string | undefined;
  let stdoutFile: { path: string; append: boolean } | undefined;
  // find's -exec/-execdir/-ok/-okdir run to a ";" of their own: inside one, ";" is find's terminator, handed to
  // find as data (its rule judges -exec), not the shell's list operator.
  let findCommand = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const current = stages[stages.length - 1]!;
    if (a === ';' && findCommand) {
      findCommand = false;
      current.push(a);
      continue;
    }
    if (current.length > 0 && FIND_COMMANDS.has(a) && familyOf(current[0]!.trim()) === 'find') findCommand = true;
    if (Object.prototype.hasOwnProperty.call(LIST_OPERATORS, a)) {
      throw new ToolError('BAD_REQUEST', `Element ${i} is the shell operator "${a}", which ${LIST_OPERATORS[a]}; there is no shell here, so it cannot work. Send two calls instead (or use "|" for a pipeline).`, 'request.shell-operator');
    }
    if (a === '|') {
      if (current.length === 0) throw new ToolError('BAD_REQUEST', `Empty pipeline stage before the "|" at element ${i}.`, 'request.pipeline');
      if (stdoutFile) throw new ToolError('BAD_REQUEST', 'An output redirect must come after the last stage of the pipeline.', 'request.redirect');
      stages.push([]);
      findCommand = false;
      continue;
    }
    if (a === '<' || a === '>' || a === '>>') {
      const target = argv[i + 1];
      if (target === undefined || OPERATORS.has(target)) throw new ToolError('BAD_REQUEST', `The redirect "${a}" at element ${i} has no file after it.`, 'request.redirect');
      if (target === '') throw new ToolError('BAD_REQUEST', `The redirect "${a}" at element ${i} has an empty file name.`, 'request.redirect');
      if (current.length === 0) throw new ToolError('BAD_REQUEST', `The redirect "${a}" at element ${i} must follow a command.`, 'request.redirect');
      if (a === '<') {
        if (stages.length > 1) throw new ToolError('BAD_REQUEST', 'An input redirect "<" can only feed the first stage of a pipeline.', 'request.redirect');
        if (stdinFile !== undefined) throw new ToolError('BAD_REQUEST', 'Only one input redirect "<" is allowed.', 'request.redirect');
        stdinFile = target;
      } else {
        if (stdoutFile !== undefined) throw new ToolError('BAD_REQUEST', 'Only one output redirect (">" or ">>") is allowed.', 'request.redirect');
        stdoutFile = { path: target, append: a === '>>' };
      }
      i++;
      continue;
    }
    if (stdoutFile) throw new ToolError('BAD_REQUEST', `Element ${i} ("${a}") follows the output redirect: redirects must come last.`, 'request.redirect');
    current.push(a);
  }
  if (stages[stages.length - 1]!.length === 0) throw new ToolError('BAD_REQUEST', 'The pipeline ends with "|" and no command after it.', 'request.pipeline');
  for (const stage of stages) stripProgram(stage);
  return { stages, ...(stdinFile !== undefined && { stdinFile }), ...(stdoutFile && { stdoutFile }) };
}

/** The exact command line used for auto-approve rules and session approvals. */
export function commandKey(argv: readonly string[], options: { literal?: boolean } = {}): string {
  // Shell-style quoting makes the key one-to-one with the argv (`echo 'x > y'` ≠ `echo x > y`) while plain
  // lines stay as people write them in autoApprove ("git status"). Literal calls get their own key space.
  const line = argv.map((a) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
  return options.literal ? `literal: ${line}` : line;
}
