import type { UndoResult } from '../shared/protocol';

/** What the panel's requests need of one folder's server. */
export interface NamedFolder {
  readonly name: string;
  revoke(key: string): Promise<boolean>;
  undo(requestId: string): Promise<UndoResult>;
}

/**
 * The approval panel names a folder by its display name, and two folders of one window can share one (two "app"
 * folders under different parents). So a revoke goes to EVERY folder of that name — revoking too much is the safe
 * side: an approval the person revoked must not survive in a namesake — and an Undo goes to each in turn until one
 * knows the change (a request id is kept in exactly one folder's store; the others answer `undo.no-backup`
 * before anything is asked or written).
 */
export async function revokeByName(folders: readonly NamedFolder[], name: string, key: string): Promise<boolean> {
  const results = await Promise.all(folders.filter((f) => f.name === name).map((f) => f.revoke(key).catch(() => false)));
  return results.some(Boolean);
}

export async function undoByName(folders: readonly NamedFolder[], name: string, requestId: string): Promise<UndoResult> {
  let answer: UndoResult = { outcome: 'failed', message: `No server for "${name}".`, files: [] };
  for (const f of folders.filter((x) => x.name === name)) {
    answer = await f.undo(requestId);
    if (answer.rule !== 'undo.no-backup') return answer;
  }
  return answer;
}
