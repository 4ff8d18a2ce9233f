import * as fs from 'node:fs';
import * as path from 'node:path';
import { ToolError } from '../errors';
import { resolveInside } from '../paths/confine';
import { guardFor } from '../paths/guard';
import { unifiedDiff } from './diffText';
import { metaOf, planChangeable, readRegular, writeAt, type Seen } from './fdops';
import { runFileChange } from './pipeline';
import { detectLineEnding, tryDecodeText } from './text';
import type { FileCall, FileDeps, FileResult } from './types';

export interface WriteFileInput {
  readonly file: string;
  readonly text: string;
  readonly append?: boolean;
  /** End the text with a line break when it does not already end with one (default true). */
  readonly newline?: boolean;
  /** Create missing parent folders (inside the workspace). */
  readonly mkdirs?: boolean;
}

/**
 * writeFile: the whole new content (or the old content plus the text, when appending) is previewed as a diff and
 * written atomically by descriptor (temp + rename in the checked folder; a new file is linked into place and
 * never replaces one that appeared). The preview records the identity and bytes it diffed; the write is refused
 * when the file is no longer exactly that (fdops.writeAt).
 */
export function writeFileTool(deps: FileDeps, call: FileCall, input: WriteFileInput): Promise<FileResult> {
  return runFileChange(deps, call, () => {
    const policy = deps.policy();
    const { root } = policy;
    const g = guardFor(policy);
    const target = resolveInside(root, input.file, { what: 'file' });
    if (target.danglingLink) throw new ToolError('BAD_REQUEST', `"${input.file}" is a symbolic link to a missing file; it is not written through.`, 'write.dangling-link');
    if (input.text.includes('\0')) throw new ToolError('BAD_REQUEST', 'The text contains a NUL byte; writeFile writes text only.', 'write.nul');
    const existing = target.exists ? fs.statSync(target.real) : undefined;
    if (existing?.isDirectory()) throw new ToolError('BAD_REQUEST', `"${target.relative}" is a folder.`, 'write.is-folder');
    if (existing && !existing.isFile()) throw new ToolError('BAD_REQUEST', `"${target.relative}" is not a regular file.`, 'write.not-regular');
    planChangeable(g, target);
    if (existing) metaOf(g, target.real);
    let folderMissing: boolean;
    try {
      folderMissing = !fs.lstatSync(path.dirname(target.real)).isDirectory();
    } catch {
      folderMissing = true;
    }
    if (folderMissing && !input.mkdirs) {
      throw new ToolError('PATH_NOT_FOUND', `The folder "${path.posix.dirname(target.relative)}" does not exist; pass mkdirs: true to create it.`, 'write.no-folder');
    }
    let seen: Seen | undefined;
    let newBytes: Buffer;
    return {
      kind: 'write',
      targets: [target],
      files: [target.relative],
      preview: () => {
        seen = existing ? readRegular(g, target.real, { decided: true }).seen : undefined;
        const oldBytes = seen?.bytes;
        const oldText = oldBytes ? tryDecodeText(oldBytes) : '';
        if (input.append && oldText === undefined) throw new ToolError('BAD_REQUEST', `"${target.relative}" is binary; text cannot be appended to it.`, 'write.append-binary');
        const ending = oldText ? detectLineEnding(oldText) : 'lf';
        const addBreak = input.newline !== false && input.text.length > 0 && !input.text.endsWith('\n');
        const body = input.text + (addBreak ? (ending === 'crlf' ? '\r\n' : '\n') : '');
        const proposed = input.append ? oldText + body : body;
        newBytes = Buffer.from(proposed, 'utf8');
        if (oldText === undefined) {
          return { diff: `Binary file ${target.relative} (${oldBytes!.length} bytes) replaced by ${newBytes.length} bytes of text\n`, proposed };
        }
        const diff = unifiedDiff(target.relative, oldText, proposed, { created: !existing });
        return { diff, proposed, ...(existing && { original: oldText }) };
      },
      keep: () => [{ file: target.relative, before: seen?.bytes ?? null, ...(seen && { mode: seen.mode }), after: newBytes }],
      apply: (preview) => {
        writeAt(g, target.real, newBytes, {
          what: 'file',
          expect: seen ? { kind: 'same', seen } : { kind: 'absent' },
          ...(seen && { mode: seen.mode }),
          mkdirs: folderMissing,
        });
        const verb = !existing ? 'Created' : input.append ? 'Appended to' : 'Wrote';
        return { message: `${verb} "${target.relative}" (${newBytes.length} bytes).`, diff: preview.diff!, changed: true, bytes: newBytes.length };
      },
    };
  });
}
