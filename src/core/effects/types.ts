/**
 * A command's effect on the workspace, as steps the file writer can apply (src/core/effects/apply.ts) and the card
 * can show (describe.ts). Paths are relative to the workspace root, '/'-separated.
 */

export type EntryKind = 'file' | 'folder' | 'link' | 'other';

/** What the workspace had at a path when the effect was read: Apply lands only on exactly that. */
export interface Before {
  readonly kind: EntryKind;
  /** dev:ino */
  readonly id: string;
  readonly size: number;
  readonly mode: number;
  readonly ctimeNs: bigint;
  /** A regular file's bytes, when small enough to hold (for the diff, the exact check and the Undo backup). */
  readonly bytes?: Buffer;
}

export type EffectStep =
  /** Remove a file, a link or a folder (a folder's content comes first, as its own steps). */
  | { readonly op: 'delete'; readonly path: string; readonly before: Before }
  /** Create or replace a regular file with the bytes the command left (`source`, in the view's upper layer). */
  | {
      readonly op: 'write';
      readonly path: string;
      readonly source: string;
      readonly size: number;
      /** sha256 of the bytes as the effect was read: Apply writes only exactly these (what the card showed). */
      readonly hash: string;
      readonly mode: number;
      /** Absent: the file is new. */
      readonly before?: Before;
      readonly contentChanged: boolean;
      /** A created file with the bytes of a file the same command deleted: shown as a rename. */
      readonly renamedFrom?: string;
    }
  | { readonly op: 'mkdir'; readonly path: string }
  | { readonly op: 'link'; readonly path: string; readonly target: string }
  /** Something the command did that Apply does not do (a device, a protected path …), and why. */
  | { readonly op: 'skip'; readonly path: string; readonly why: string };

/** One file of the effect as the card and the result list it. */
export interface EffectFile {
  readonly path: string;
  readonly change: 'created' | 'modified' | 'deleted' | 'renamed' | 'mode' | 'folder created' | 'folder deleted' | 'link created' | 'link deleted' | 'not applied';
  /** renamed: where it came from; not applied: why. */
  readonly detail?: string;
}
