import * as fs from 'node:fs';
import { PolicyError } from '../core/policy';
import { generateToken } from './http/guards';

/**
 * A bearer token that survives restarts: read from `file`, or created there (mode 0600, never over an existing
 * file) on the first start. A file others can read, or another user's file, is refused: the token lets its holder
 * run commands.
 */
export function tokenFromFile(file: string): string {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw new PolicyError(`--token-file ${file}: cannot read it (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}).`);
    return create(file);
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw new PolicyError(`--token-file ${file}: not a regular file.`);
    // Whoever owns the file chose the token: it must be the user the server runs as (a root server must not take
    // a token another user wrote).
    const uid = process.getuid?.();
    if (uid !== undefined && st.uid !== uid) throw new PolicyError(`--token-file ${file}: owned by another user (uid ${st.uid}); use a file of your own.`);
    if ((st.mode & 0o077) !== 0) throw new PolicyError(`--token-file ${file}: others can read it (mode ${(st.mode & 0o777).toString(8)}); run "chmod 600 ${file}".`);
    const token = fs.readFileSync(fd, 'utf8').trim();
    if (!/^[\x21-\x7e]{16,}$/.test(token)) throw new PolicyError(`--token-file ${file}: expected one token of at least 16 printable characters; delete the file to get a new one.`);
    return token;
  } finally {
    fs.closeSync(fd);
  }
}

function create(file: string): string {
  const token = generateToken();
  try {
    const fd = fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, 0o600);
    try {
      fs.writeSync(fd, token + '\n');
    } finally {
      fs.closeSync(fd);
    }
  } catch (e) {
    throw new PolicyError(`--token-file ${file}: cannot create it (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); check that its folder exists.`);
  }
  return token;
}
