import * as fs from 'node:fs';
import { IDENTITY_ENV_NAMES, readGitIdentityFrom, type GitIdentity, type GitIdentitySources } from './gitIdentity';

/**
 * The git identity is given to every command as it is configured at that moment (an edited ~/.gitconfig applies
 * to the next command), but reading and parsing every configuration file again for each call was a twentieth of
 * a call's CPU. So a reading is kept with the identity of each file it tried (device, inode, size, change and
 * modification times in nanoseconds, or how it failed), and made again as soon as any of them differs.
 *
 * File times are coarse (one tick of the kernel's clock): two writes within one tick that keep the size look
 * alike. As with git's "racily clean" index entries, a reading that saw a file changed in the last
 * RACY_MS is therefore not kept.
 */
const RACY_MS = 2000;
/** Readings kept: one per distinct source (a multi-root window serves several folders in one process). */
const MAX_READINGS = 16;

interface Reading {
  readonly files: readonly string[];
  readonly stamps: readonly string[];
  readonly identity: GitIdentity;
}

const readings = new Map<string, Reading>();

export function cachedGitIdentity(src: GitIdentitySources, now = Date.now()): GitIdentity {
  const key = sourceKey(src);
  const kept = readings.get(key);
  if (kept && kept.files.every((f, i) => stampOf(f, now) === kept.stamps[i])) return kept.identity;
  const { identity, files } = readGitIdentityFrom(src);
  const stamps = files.map((f) => stampOf(f, now));
  readings.delete(key);
  if (stamps.every((s) => s !== undefined)) {
    if (readings.size >= MAX_READINGS) readings.delete(readings.keys().next().value!);
    readings.set(key, { files, stamps: stamps as string[], identity });
  }
  return identity;
}

/**
 * Everything readGitIdentity reads besides the files. Typed so that a new field of the sources fails to compile here
 * until the key takes it, and the environment names come from the reader's own list.
 */
function sourceKey(src: GitIdentitySources): string {
  const parts: { [K in keyof Required<GitIdentitySources>]: unknown } = {
    home: src.home,
    env: IDENTITY_ENV_NAMES.map((n) => src.env[n]),
    repo: src.repo ?? null,
  };
  return JSON.stringify(parts);
}

/** A file's identity and times, or how looking at it failed; undefined when it changed too recently to tell. */
function stampOf(file: string, now: number): string | undefined {
  let st: fs.BigIntStats | undefined;
  try {
    st = fs.statSync(file, { bigint: true, throwIfNoEntry: false });
  } catch (e) {
    return `error ${(e as NodeJS.ErrnoException).code ?? ''}`;
  }
  if (!st) return 'absent';
  const newest = st.ctimeNs > st.mtimeNs ? st.ctimeNs : st.mtimeNs;
  if (Number(newest / 1_000_000n) > now - RACY_MS) return undefined;
  return `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
}
