import { runHelper } from '../exec/launch/spawn';

/**
 * Which folders of an overlay's upper layer are opaque: made where the command had removed a folder of the
 * workspace (`rm -rf build && mkdir build`), so nothing of the workspace's folder shows through. overlayfs says so
 * in an extended attribute only (`trusted.overlay.opaque`, or `user.overlay.opaque` under `userxattr`), and Node
 * has no call that reads one; perl (perl-base) makes the lgetxattr system call for a list of folders at once.
 *
 * lgetxattr's number per architecture (Linux's own tables: x86_64 syscall_64.tbl, the generic table that arm64,
 * riscv64 and loongarch64 use, i386/arm, ppc64, s390x). Elsewhere there is no preview (the probe says why).
 */
const LGETXATTR: Partial<Record<NodeJS.Architecture, number>> = { x64: 192, arm64: 9, riscv64: 9, loong64: 9, ia32: 230, arm: 230, ppc64: 213, s390x: 228 };

/** Reads NUL-separated paths, writes back the NUL-separated ones that carry an opaque mark ("y"). */
const SCRIPT = [
  'my $nr = shift; local $/ = "\\0"; binmode STDIN; binmode STDOUT;',
  'while (my $p = <STDIN>) { chomp $p;',
  '  for my $n ("trusted.overlay.opaque", "user.overlay.opaque") {',
  '    my ($path, $name, $buf) = ($p, $n, "\\0" x 8);',
  '    my $r = syscall($nr, $path, $name, $buf, 8);',
  '    if ($r >= 1 && substr($buf, 0, 1) eq "y") { print $p, "\\0"; last }',
  '  }',
  '}',
].join('\n');

/** The reader's argv, or undefined where this architecture's system call number is not known. */
export function opaqueReaderArgv(perl: string, arch: NodeJS.Architecture = process.arch): string[] | undefined {
  const nr = LGETXATTR[arch];
  return nr === undefined ? undefined : [perl, '-e', SCRIPT, String(nr)];
}

/** The opaque ones among `folders` (absolute paths in the server's own staging folder). */
export async function readOpaque(perl: string, folders: readonly string[]): Promise<Set<string>> {
  if (folders.length === 0) return new Set();
  const argv = opaqueReaderArgv(perl);
  if (!argv) throw new Error(`overlayfs marks cannot be read on ${process.arch}`);
  const r = await runHelper(argv[0]!, argv.slice(1), {
    timeoutMs: 10_000,
    env: { PATH: '/usr/bin:/bin', LC_ALL: 'C' },
    input: Buffer.from(folders.map((f) => `${f}\0`).join('')),
    maxOutputBytes: 64 * 1024 * 1024,
  });
  if (r.error) throw new Error(`reading the overlay's marks failed: ${r.stderr.trim() || r.error.message}`);
  return new Set(r.stdout.toString('utf8').split('\0').filter(Boolean));
}
