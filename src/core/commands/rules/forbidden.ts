import { deny, type Verdict } from '../../verdict';
import { baseCommandName, familyOf, memo } from './families';

/**
 * Programs that are NEVER runnable, whatever the allowlist says, because running them is the same as running
 * any program: a shell, an interpreter that takes its code from argv or stdin, a wrapper whose job is to
 * start another command, or an interactive program with a shell escape. Version-only forms (`deno --version`,
 * `strace -V`) are denied too: the name alone decides, so no argument spelling can turn a harmless call into
 * a harmful one.
 *
 * Decision on make-likes (make, ninja, cmake, npm/yarn/pnpm scripts, cargo, go, gradle, mvn): NOT in this
 * list. Running the project's own recipes is what an agent shell is for; an operator who allowlists `make`
 * delegates the recipes on purpose, and `isolation` is the boundary for them. Package RUNNERS that fetch and
 * run arbitrary packages by name (npx, bunx, pnpx) ARE listed, as wrappers.
 */
export const FORBIDDEN_CATEGORIES = {
  shell: [
    'sh', 'bash', 'rbash', 'dash', 'ash', 'zsh', 'ksh', 'ksh93', 'mksh', 'pdksh', 'lksh', 'oksh', 'yash', 'posh',
    'csh', 'tcsh', 'fish', 'rc', 'es', 'nu', 'elvish', 'xonsh', 'ion', 'hush', 'scsh', 'busybox', 'toybox',
    'cmd', 'command', 'builtin', 'exec', 'eval', 'source', '.',
  ],
  interpreter: [
    'python', 'pypy', 'ipython', 'jython', 'perl', 'ruby', 'jruby', 'irb', 'node', 'nodejs', 'php', 'php-cgi',
    'lua', 'luajit', 'deno', 'bun', 'tclsh', 'wish', 'expect', 'osascript', 'pwsh', 'powershell', 'r', 'rscript',
    'jshell', 'groovy', 'guile', 'racket', 'sbcl', 'clisp', 'ocaml', 'ghci', 'runghc', 'erl', 'elixir', 'iex',
    'julia', 'swift', 'dotnet-script', 'scala', 'kotlin', 'crystal', 'nim', 'v', 'qjs', 'rhino', 'jjs', 'tsx',
    'ts-node', 'dc', 'wscript', 'cscript', 'mshta',
    // Also languages whose programs run commands: m4 (syscmd/esyscmd), tcc -run (C source), octave and gnuplot
    // (system()), java (java Foo.java runs source; -jar any code), wine (Windows programs).
    'm4', 'gm4', 'tcc', 'octave', 'octave-cli', 'gnuplot', 'java', 'wine', 'wine64',
  ],
  wrapper: [
    'env', 'xargs', 'timeout', 'nice', 'nohup', 'setsid', 'stdbuf', 'taskset', 'ionice', 'chroot', 'unshare',
    'nsenter', 'flock', 'script', 'watch', 'setarch', 'linux32', 'linux64', 'i386', 'x86_64', 'uname26', 'arch',
    'strace', 'ltrace', 'valgrind', 'gdb', 'lldb', 'time', 'sudo', 'doas', 'su', 'pkexec', 'runuser', 'chrt',
    'prlimit', 'systemd-run', 'systemd-nspawn', 'parallel', 'sem', 'rlwrap', 'caffeinate', 'sandbox-exec', 'bwrap',
    'firejail', 'proot', 'fakeroot', 'fakechroot', 'sg', 'newgrp', 'setpriv', 'capsh', 'chpst', 'numactl',
    'cpulimit', 'trickle', 'torsocks', 'proxychains', 'proxychains4', 'catchsegv', 'perf', 'entr', 'eatmydata',
    'unbuffer', 'daemonize', 'start-stop-daemon', 'ssh-agent', 'dbus-launch', 'xvfb-run', 'npx', 'bunx', 'pnpx',
    'at', 'batch', 'crontab', 'nocache', 'runas', 'start', 'open', 'xdg-open', 'docker', 'podman', 'nerdctl',
    'lxc-execute', 'chronic', 'ifne', 'pipetty', 'expect_unbuffer', 'socat', 'nc', 'ncat', 'netcat',
    // Each of these runs the program or folder of programs it is given: run-parts (every file in a folder),
    // logsave (logsave FILE CMD), dbus-run-session (CMD under a bus), the package runners uvx/pipx, the
    // init shims and the security-context runners.
    'run-parts', 'logsave', 'dbus-run-session', 'uvx', 'pipx', 'tini', 'dumb-init', 'catatonit', 'runcon',
    'aa-exec', 'schroot', 'cgexec', 'faketime', 'torify', 'tsocks', 'systemd-cat', 'systemd-inhibit',
    'flatpak-spawn', 'gpg-agent', 'hwloc-bind', 'byobu', 'zellij', 'ssh-keygen',
    // Openers that start whatever program is registered for a file (mailcap entries are shell commands).
    'run-mailcap', 'gio', 'gnome-open', 'kde-open', 'kde-open5', 'exo-open', 'kioclient', 'kioclient5', 'mimeopen',
    'sudoedit', 'run0', 'startx', 'xinit', 'rr',
    // Compiler caches and distributors run whatever compiler command follows them.
    'ccache', 'sccache', 'distcc', 'icecc',
    // gpg runs helper programs it is told to (--photo-viewer, --exec-path); vifm is a file manager with `:!`.
    'gpg', 'gpg2', 'vifm',
    // The dynamic loader runs any ELF file given to it (`ld.so /path/prog`), also ones without an execute bit.
    'ld.so', 'ld64.so', 'ldd',
  ],
  'shell-escape': [
    'less', 'more', 'most', 'pg', 'man', 'info', 'vi', 'vim', 'nvim', 'gvim', 'rvim', 'vimdiff', 'view', 'ex', 'ed',
    'red', 'emacs', 'emacsclient', 'nano', 'rnano', 'pico', 'joe', 'jed', 'mc', 'ssh', 'scp', 'sftp', 'telnet',
    'ftp', 'lftp', 'rlogin', 'rsh', 'mosh', 'tmux', 'screen', 'sqlite3', 'psql', 'mysql', 'mariadb', 'mail',
    'mailx', 'mutt', 'tig', 'aerc', 'ranger', 'nnn', 'lynx', 'w3m', 'links', 'elinks',
    // Debian alternatives and helper scripts that start whichever editor, pager or browser is configured.
    'editor', 'sensible-editor', 'select-editor', 'pager', 'sensible-pager', 'sensible-browser',
    'x-www-browser', 'www-browser', 'gnome-www-browser', 'x-terminal-emulator', 'rview', 'vimx', 'vimtutor',
    'elvis', 'nvi', 'jove', 'mg', 'micro', 'kak', 'hx', 'helix', 'zile', 'jmacs', 'jpico', 'jstar', 'ne', 'mcedit',
    'mcview', 'busybox-vi', 'lesspipe', 'lessfile',
  ],
} as const satisfies Record<string, readonly string[]>;

export type ForbiddenCategory = keyof typeof FORBIDDEN_CATEGORIES;

/**
 * Name patterns for families installed under many names. Checked against the base name (lower case) so that
 * `perl5.36`, `python3.12-dbg`, `node22`, `php8.2`, `lua5.4`, `pwsh-preview` are caught without listing them.
 */
export const FORBIDDEN_PATTERNS: readonly { readonly pattern: RegExp; readonly category: ForbiddenCategory }[] = [
  { pattern: /^(ba|da|z|k|mk|tc|c|fi|a|ya|r)sh[\d._-]*$/, category: 'shell' },
  { pattern: /^(python|pypy|ipython|jython)[\d._-]*[a-z]?(-dbg|-debug|-config)?$/, category: 'interpreter' },
  { pattern: /^(perl|ruby|jruby|irb|node|nodejs|php|lua|luajit|tclsh|wish|deno|bun|rscript|expect)[\d._-]*$/, category: 'interpreter' },
  { pattern: /^pwsh(-preview|-lts)?[\d._-]*$/, category: 'interpreter' },
  { pattern: /^(vim?|nvim|emacs)[\d._-]*$/, category: 'shell-escape' },
  // The dynamic loader under its real file names: ld-linux-x86-64.so.2, ld-linux.so.2, ld-musl-x86_64.so.1,
  // ld-2.31.so, ld64.so.2, ld.so.1.
  { pattern: /^ld(64)?([-.][^/]*)?\.so(\.[\d.]+)?$/, category: 'wrapper' },
  { pattern: /^ld-linux/, category: 'wrapper' },
  // qemu user-mode emulators run any binary given to them (qemu-x86_64, qemu-aarch64-static); qemu-system-* boots one.
  { pattern: /^qemu-/, category: 'wrapper' },
];

const BY_NAME: ReadonlyMap<string, ForbiddenCategory> = new Map(
  (Object.entries(FORBIDDEN_CATEGORIES) as [ForbiddenCategory, readonly string[]][]).flatMap(([cat, names]) =>
    names.map((n) => [n, cat] as const),
  ),
);

const WHY: Readonly<Record<ForbiddenCategory, string>> = {
  shell: 'it is a shell, which runs any command given to it',
  interpreter: 'it is an interpreter or script runtime, which runs any code given in its arguments or input',
  wrapper: 'it is a wrapper whose job is to start another command (or schedule, trace or elevate one)',
  'shell-escape': 'it is an interactive program with a shell escape or remote command execution',
};

function categoryOfBase(base: string): ForbiddenCategory | undefined {
  const fam = familyOf(base);
  const direct = BY_NAME.get(base) ?? (fam !== undefined ? BY_NAME.get(fam) : undefined);
  if (direct) return direct;
  for (const { pattern, category } of FORBIDDEN_PATTERNS) if (pattern.test(base)) return category;
  return undefined;
}

/**
 * The category a command name is forbidden under, or undefined when the name is not forbidden. Besides the
 * name itself, its stem before the first dot is judged: Debian installs variants as `NAME.VARIANT`
 * (`vim.basic`, `vim.tiny`, `sh.distrib`, `nano.tiny`, `which.debianutils`), so `vim.basic` is vim.
 */
export function forbiddenCategory(commandName: string): ForbiddenCategory | undefined {
  return memo(categoryMemo, commandName, forbiddenCategoryUncached);
}

const categoryMemo = new Map<string, ForbiddenCategory | undefined>();

function forbiddenCategoryUncached(commandName: string): ForbiddenCategory | undefined {
  const base = baseCommandName(commandName);
  const direct = categoryOfBase(base);
  if (direct) return direct;
  const dot = base.indexOf('.');
  return dot > 0 ? categoryOfBase(base.slice(0, dot)) : undefined;
}

/** Deny a never-runnable name (rule `forbidden.<category>`), or undefined when the name is not forbidden. */
export function judgeForbiddenName(commandName: string): Verdict | undefined {
  const category = forbiddenCategory(commandName);
  if (!category) return undefined;
  const base = baseCommandName(commandName);
  return deny(
    'COMMAND_FORBIDDEN',
    `forbidden.${category}`,
    `"${commandName}" can never be run: ${WHY[category]}. This holds even when it is in the allowlist and even for version-only forms like "${base} --version".`,
  );
}

/** Every forbidden name and pattern, for the README / docs. */
export function describeForbidden(): { categories: Record<ForbiddenCategory, readonly string[]>; patterns: string[] } {
  return {
    categories: FORBIDDEN_CATEGORIES as unknown as Record<ForbiddenCategory, readonly string[]>,
    patterns: FORBIDDEN_PATTERNS.map((p) => `${p.pattern.source} (${p.category})`),
  };
}
