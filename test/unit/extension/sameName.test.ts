import { describe, expect, it } from 'vitest';
import { revokeByName, undoByName, type NamedFolder } from '../../../src/extension/sameName';
import type { UndoResult } from '../../../src/shared/protocol';

/** A folder as the panel's requests see it: what it remembers and which changes its store keeps. */
function folder(name: string, remembered: string[], kept: string[]): NamedFolder & { remembered: string[]; undone: string[] } {
  const undone: string[] = [];
  return {
    name, remembered, undone,
    revoke: async (key) => {
      const i = remembered.indexOf(key);
      if (i >= 0) remembered.splice(i, 1);
      return i >= 0;
    },
    undo: async (id): Promise<UndoResult> => {
      if (!kept.includes(id)) return { outcome: 'failed', message: 'No backup of that change is kept', files: [], rule: 'undo.no-backup' };
      undone.push(id);
      return { outcome: 'ok', message: 'restored', files: ['a.txt'] };
    },
  };
}

describe('two folders of one window with the same name', () => {
  it('a revoke reaches the namesake that remembers the approval (it never survives in the other "app")', async () => {
    const first = folder('app', [], []);
    const second = folder('app', ['shell_execute ls'], []);
    const other = folder('web', ['shell_execute ls'], []);
    expect(await revokeByName([first, second, other], 'app', 'shell_execute ls')).toBe(true);
    expect(second.remembered).toEqual([]);
    expect(other.remembered).toEqual(['shell_execute ls']); // another name is not touched
  });

  it('an Undo reaches the folder whose store kept the change, whichever comes first', async () => {
    const first = folder('app', [], []);
    const second = folder('app', [], ['req-1']);
    const r = await undoByName([first, second], 'app', 'req-1');
    expect(r.outcome).toBe('ok');
    expect(second.undone).toEqual(['req-1']);
  });

  it('an Undo that no folder knows says so; a folder with no such name is an error naming it', async () => {
    expect(await undoByName([folder('app', [], [])], 'app', 'gone')).toMatchObject({ outcome: 'failed', rule: 'undo.no-backup' });
    expect(await undoByName([folder('app', [], ['x'])], 'web', 'x')).toMatchObject({ outcome: 'failed', message: 'No server for "web".' });
  });
});
