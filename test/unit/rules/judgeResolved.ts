import { resolveProgram } from '../../../src/core/commands/resolve';
import { judgeCommand } from '../../../src/core/commands/rules';

/**
 * Judges an argv as decide does for the real programs of the *.real tests: by its name and by the file the PATH
 * lookup finds (its path and real path), so a rule keyed on the program behind a name is exercised too.
 */
export function judgeResolved(argv: readonly string[], where: { readonly pathEnv: string; readonly cwd: string }) {
  const r = resolveProgram(argv[0]!, where);
  if ('notFound' in r) throw new Error(`${argv[0]} is not installed here: ${r.notFound}`);
  return judgeCommand(argv, { aliases: [r.path, r.real] });
}
