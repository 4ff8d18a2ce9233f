import { runTextEdit } from './edit';
import { applyUnifiedDiff, parsePatchArgs } from './patch';
import { replaceExact } from './replace';
import { checkSedArgs, sedTransform, type SedOptions } from './sed';
import type { FileCall, FileDeps, FileResult } from './types';

/** editFile(file, script, args?): GNU sed --sandbox on the current content, previewed as a diff, then applied. */
export function editFileTool(deps: FileDeps, call: FileCall, input: { file: string; script: string; args?: readonly string[] }, sed: SedOptions = {}): Promise<FileResult> {
  const args = input.args ?? [];
  return runTextEdit(deps, call, input.file, (original, signal) => {
    checkSedArgs(args);
    return sedTransform(original, input.script, args, { ...sed, ...(signal && { signal }) });
  });
}

/**
 * applyPatch(file, diff, pnum=2, args?): the explicit file is the target. `pnum` is accepted for compatibility
 * with cmdshellmcp and validated, but has nothing to strip: names inside the diff are never used.
 */
export function applyPatchTool(deps: FileDeps, call: FileCall, input: { file: string; diff: string; pnum?: number; args?: readonly string[] }): Promise<FileResult> {
  return runTextEdit(deps, call, input.file, (original) => {
    const options = parsePatchArgs(input.args ?? []);
    return applyUnifiedDiff(original, input.diff, options);
  });
}

/** replaceInFile(file, oldText, newText, expectedReplacements=1): exact search and replace. */
export function replaceInFileTool(deps: FileDeps, call: FileCall, input: { file: string; oldText: string; newText: string; expectedReplacements?: number }): Promise<FileResult> {
  return runTextEdit(deps, call, input.file, (original) => replaceExact(original, input.oldText, input.newText, input.expectedReplacements ?? 1));
}
