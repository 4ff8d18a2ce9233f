import * as fs from 'node:fs';
import { ToolError } from '../errors';

/**
 * Numbered backups (`file.bk1`, `file.bk2` …) as in cmdshellmcp. Each name is RESERVED with O_CREAT|O_EXCL
 * (`wx`): an existing backup — or a symlink planted under a backup name — makes the open fail and the next
 * number is tried, so a backup is never overwritten and never written through a link.
 */
const MAX_BACKUPS = 10_000;

export function writeBackup(real: string, content: Buffer, mode: number): string {
  for (let n = 1; n <= MAX_BACKUPS; n++) {
    const candidate = `${real}.bk${n}`;
    let fd: number;
    try {
      fd = fs.openSync(candidate, 'wx', 0o600);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw new ToolError('IO_ERROR', `Cannot create the backup "${candidate}": ${(e as Error).message}`, 'backup.io');
    }
    try {
      let off = 0;
      while (off < content.length) off += fs.writeSync(fd, content, off, content.length - off);
      // Same permissions as the original: a backup of a secret file must not be more readable than it.
      fs.fchmodSync(fd, mode & 0o777);
      fs.fsyncSync(fd);
      fs.closeSync(fd);
    } catch (e) {
      fs.closeSync(fd);
      fs.rmSync(candidate, { force: true });
      throw new ToolError('IO_ERROR', `Cannot write the backup "${candidate}": ${(e as Error).message}`, 'backup.io');
    }
    return candidate;
  }
  throw new ToolError('IO_ERROR', `Too many backups of this file (${MAX_BACKUPS}); delete old .bkN files first.`, 'backup.too-many');
}
