# Guarded Shell's containment zygote (see src/core/exec/zygote/client.ts): one small, long-lived process per
# server that starts every stage of a call as PID 1 of a NEW PID namespace by a plain fork, so that nothing of
# the call outlives it, without one more exec per command. Perl because it is on every Debian/Ubuntu system
# (perl-base is Essential) and can make the system calls Node cannot (unshare, setns, prctl); no module (below).
#
#   server (Node) -> Z0 (this script; dies with the server: PDEATHSIG)
#                     -> zygote (PID 1 of namespace Z; dies with Z0: PDEATHSIG)
#                         -> each stage (PID 1 of its own namespace inside Z; its own session and group)
#
# A stage's namespace dies with the stage (the kernel kills whatever it left, setsid or not); Z, and every
# namespace inside it, dies with the zygote, whatever the stages did to their own PDEATHSIG. The chain above the
# stages is only this script.
#
# Protocol: requests on fd 0 are frames "<length>\n<payload>", payload fields separated by NUL (argv and
# environment strings cannot contain NUL). What the server checked (the working directory, an output file) comes
# as a path and the device:inode of the object the server holds open: opened again here, and refused when it is
# not that object. (/proc/<server>/fd is out of reach from inside a user namespace.) Replies on fd 1 are lines:
#   READY <pid|user> <pid>    how namespaces are made: as is (CAP_SYS_ADMIN) or inside a user namespace;
#                             the zygote's pid on the host (its descriptors are read through /proc/<pid>/fd)
#   FAIL <why>                cannot work here (then it exits)
#   S <id> <pid,...> <in> <out> <err,...>
#                             started: each stage's pid (its process group) on the host, and the zygote's
#                             descriptors of the server-side pipe ends ('-' for none); the server opens them
#                             through /proc/<zygote>/fd/N, then sends "A <id>..." (with its next request, or
#                             alone after a moment) and the zygote closes its copies
#   F <id> <why>              nothing of the call was started
#   X <id> <stage> <wait status> [<step> <errno>]
#                             a stage ended (wait status as Perl's $?); the step that failed before exec, if any
# It runs on every fork, so it is kept small: only perl itself (no module: POSIX alone would add 2 MB of
# heap, Errno ~190 KB, every page of which a fork copies the page table entry for); the system
# calls Perl has no word for go through syscall() with the numbers of this perl's ABI, and the open() flags
# come from the server (its Node has them for this machine): --flags O_PATH,O_DIRECTORY,O_NOFOLLOW,O_NONBLOCK,
# O_APPEND,O_WRONLY. The server starts it with PERLIO=:unix: every handle unbuffered (it only uses sysread and
# syswrite), as perl flushes each buffered handle before a fork, a write to pages the spares share.
use strict;

$0 = 'guarded-shell-zygote';
my $CLONE_NEWPID = 0x20000000;
my $CLONE_NEWUSER = 0x10000000;
my ($PR_SET_PDEATHSIG, $PR_SET_DUMPABLE) = (1, 4);
my ($F_GETFL, $F_SETFL, $WNOHANG, $ENOENT, $ENOEXEC, $SIG_BLOCK, $SIG_SETMASK, $SIGCHLD) = (3, 4, 1, 2, 8, 0, 2, 17); # the same on every ABI below

# System call numbers of the ABI this perl was built for, told by its own ELF header (class: 1 = 32-bit,
# 2 = 64-bit; machine): unshare, prctl, setns, exit_group, setsid, dup3, rt_sigprocmask, close, execve, pipe2,
# signalfd4.
# close_range is 436 everywhere, and O_CLOEXEC 02000000 on every ABI listed. An ABI not listed (x32, mips, ...)
# refuses to start: the exec launchers are used instead.
my %SYSCALLS = (
  '2:62' => [272, 157, 308, 231, 112, 292, 14, 3, 59, 293, 289],  # x86_64
  '1:3' => [310, 172, 346, 252, 66, 330, 175, 6, 11, 331, 327],   # i386
  '2:183' => [97, 167, 268, 94, 157, 24, 135, 57, 221, 59, 74],   # aarch64 (the generic table)
  '2:243' => [97, 167, 268, 94, 157, 24, 135, 57, 221, 59, 74],   # riscv64
  '2:258' => [97, 167, 268, 94, 157, 24, 135, 57, 221, 59, 74],   # loongarch64
  '1:40' => [337, 172, 375, 248, 66, 358, 175, 6, 11, 359, 355],  # arm (EABI)
  '2:21' => [282, 171, 350, 234, 66, 316, 174, 6, 11, 317, 313],  # ppc64, either endianness
  '2:22' => [303, 172, 339, 248, 66, 326, 175, 6, 11, 325, 322],  # s390x
);
my ($SYS_CLOSE_RANGE, $O_CLOEXEC) = (436, 0x80000);
my ($flags, @rest) = @ARGV;
# As numbers: `|` of two strings would OR their characters.
my ($O_PATH, $O_DIRECTORY, $O_NOFOLLOW, $O_NONBLOCK, $O_APPEND, $O_WRONLY) = map { $_ + 0 } ($flags // '') =~ /^--flags=(\d+),(\d+),(\d+),(\d+),(\d+),(\d+)$/;
@ARGV = @rest;
my $abi = '';
{
  my ($exe, $h);
  if (open($exe, '<', '/proc/self/exe') && (sysread($exe, $h, 20) // 0) == 20 && substr($h, 0, 4) eq "\x7fELF") {
    my ($class, $data) = unpack('x4 C C', $h);
    $abi = "$class:" . unpack($data == 1 ? 'v' : 'n', substr($h, 18, 2)); # e_machine, in the file's byte order
  }
}
my ($SYS_UNSHARE, $SYS_PRCTL, $SYS_SETNS, $SYS_EXIT_GROUP, $SYS_SETSID, $SYS_DUP3, $SYS_SIGPROCMASK, $SYS_CLOSE, $SYS_EXECVE, $SYS_PIPE2, $SYS_SIGNALFD4) = @{ $SYSCALLS{$abi} || [] };

# Ends this process at once: no destructors, no buffers flushed (a forked stage must not run the zygote's).
sub _exit { syscall($SYS_EXIT_GROUP, $_[0] + 0) if defined $SYS_EXIT_GROUP; CORE::exit($_[0]) }
sub out { syswrite(STDOUT, $_[0]) }
sub fatal { out("FAIL $_[0]\n"); _exit(1) }
sub nonblocking { my ($fh) = @_; fcntl($fh, $F_SETFL, (fcntl($fh, $F_GETFL, 0) + 0) | $O_NONBLOCK) }
sub die_with_parent { syscall($SYS_PRCTL, $PR_SET_PDEATHSIG, 9, 0, 0, 0) == 0 }

my $trial = @ARGV && $ARGV[0] eq '--trial';
shift @ARGV if $trial;
my $uid = $<;
my ($gid) = split ' ', $(;

fatal("no open() flags given (--flags=O_PATH,O_DIRECTORY,O_NOFOLLOW,O_NONBLOCK,O_APPEND,O_WRONLY)") unless defined $O_WRONLY;
fatal("no known system call numbers for this perl (ELF class:machine '$abi')") unless defined $SYS_UNSHARE;
my $server = getppid();
fatal("prctl(PR_SET_PDEATHSIG): $!") unless die_with_parent();
_exit(0) if getppid() != $server; # the server died before we could follow it

# Closes every descriptor but the ones given (by number): close_range() over the gaps between them (Linux 5.9+),
# which leaves /proc alone (a spare that listed /proc/self/fd left entries the kernel then had to drop when it was
# reaped: ~6% of the zygote's time per call); else by the list in /proc/self/fd.
sub close_all_but {
  my @keep = sort { $a <=> $b } map { $_ + 0 } @_;
  my ($from, $ranges_closed) = (0, 1);
  for my $k (@keep, 0xFFFFFFFF + 1) {
    if ($k > $from) { syscall($SYS_CLOSE_RANGE, $from, $k - 1, 0) == 0 or do { $ranges_closed = 0; last } }
    $from = $k + 1 if $k >= $from;
  }
  return if $ranges_closed;
  my %keep = map { $_ => 1 } @keep;
  opendir(my $dh, '/proc/self/fd') or return;
  my @fds = grep { /^\d+$/ && !$keep{$_} } readdir($dh);
  my $own = fileno($dh);
  closedir($dh);
  syscall($SYS_CLOSE, $_ + 0) for grep { $_ != $own } @fds;
}
# Descriptors a process above the server left open without close-on-exec must reach neither us nor a stage.
close_all_but(0, 1, 2);

sub write_file {
  my ($file, $text) = @_;
  open(my $fh, '>', $file) or return $! == $ENOENT && $file =~ /setgroups$/; # kernels before 3.19 lack it
  my $ok = syswrite($fh, $text);
  close($fh);
  return defined $ok;
}

# Our next child starts namespace Z: as is where we may (CAP_SYS_ADMIN), else inside a new user namespace that
# maps only our own uid and gid (the same rights as before; a stage's exec drops the namespace's capabilities,
# since its uid there is not 0).
my $MODE;
if (syscall($SYS_UNSHARE, $CLONE_NEWPID) == 0) {
  $MODE = 'pid';
} elsif (syscall($SYS_UNSHARE, $CLONE_NEWUSER | $CLONE_NEWPID) == 0) {
  $MODE = 'user';
  write_file('/proc/self/setgroups', 'deny') or fatal("setgroups: $!");
  write_file('/proc/self/uid_map', "$uid $uid 1") or fatal("uid_map: $!");
  write_file('/proc/self/gid_map', "$gid $gid 1") or fatal("gid_map: $!");
} else {
  fatal("no PID namespace can be created here (no CAP_SYS_ADMIN and no unprivileged user namespaces): $!");
}

pipe(my $life_r, my $life_w) or fatal("pipe: $!"); # EOF for the zygote once Z0 is gone
my $zygote = fork();
fatal("fork: $!") unless defined $zygote;
if ($zygote) {
  # Z0: hold nothing of the channel (the server sees the zygote's end as EOF), wait, and end with it.
  close($life_r);
  open(STDIN, '<', '/dev/null');
  open(STDOUT, '>', '/dev/null') unless $trial;
  waitpid($zygote, 0);
  _exit($? & 127 ? 126 : $? >> 8);
}

# --- the zygote: PID 1 of Z ---
close($life_w);
_exit(0) unless die_with_parent();
nonblocking($life_r);
_exit(0) if defined(sysread($life_r, my $byte, 1)); # EOF: Z0 died before PDEATHSIG was set
close($life_r); # from now on PDEATHSIG tells
syscall($SYS_PRCTL, $PR_SET_DUMPABLE, 1, 0, 0, 0); # entering a user namespace made us undumpable: the server
                                                   # opens our pipe ends through /proc/<zygote>/fd
open(my $own_ns, '<', '/proc/self/ns/pid') or fatal("/proc/self/ns/pid: $!");
# Our children's pids as the HOST sees them (the server signals those; fork returns the pid inside Z): /proc is
# the host's, so its list of our children is in host numbers.
my $HOST_SELF = readlink('/proc/self') or fatal("/proc/self: $!");
# The list is read again through one descriptor kept open (a seek to 0 makes the kernel render it anew).
my $CHILDREN = "/proc/$HOST_SELF/task/$HOST_SELF/children";
open(my $children, '<', $CHILDREN) or fatal("$CHILDREN is missing (a kernel without CONFIG_PROC_CHILDREN): $!");
my %on_host; # the host pids of every child not reaped yet

sub new_child_on_host {
  sysseek($children, 0, 0) or return;
  my $list = '';
  1 while sysread($children, $list, 4096, length $list);
  my @new = grep { !$on_host{$_} } split ' ', $list;
  return @new == 1 ? $new[0] : undef;
}

open(my $DEVNULL, '<', '/dev/null') or fatal("/dev/null: $!"); # the input of a call that is given none
pipe(my $rep_r, my $rep_w) or fatal("pipe: $!");   # a stage that fails before exec says why (one short line)
nonblocking($rep_r);
$SIG{PIPE} = 'IGNORE';
# A child's end wakes select through a signalfd: SIGCHLD stays blocked and is read as data, so no signal
# handler runs (a Perl sub, a self-pipe write and read, an interrupted select: per call, and pages a fork then
# copies). Every stage starts with an empty mask (reset_signals).
my $chld_set = pack('L!2', 1 << ($SIGCHLD - 1), 0); # the kernel's sigset: its first 64 bits, as unsigned longs
syscall($SYS_SIGPROCMASK, $SIG_BLOCK, $chld_set, 0, 8) == 0 or fatal("sigprocmask: $!");
my $chld_fd = syscall($SYS_SIGNALFD4, -1, $chld_set, 8, $O_NONBLOCK | $O_CLOEXEC);
fatal("signalfd: $!") if $chld_fd < 0;
open(my $chld, '<&=', $chld_fd) or fatal("signalfd: $!");

# The signal state a command starts with: the only disposition we changed (Node started us with every signal at
# its default; an ignored SIGPIPE would be inherited; resetting all of %SIG costs more than the exec), and an
# empty mask (ours blocks SIGCHLD, which the zygote reads through its signalfd).
sub reset_signals {
  my ($key) = @_;
  $SIG{PIPE} = 'DEFAULT';
  my $empty = pack('x8'); # the kernel's sigset: 64 bits (a variable: syscall() refuses a constant string)
  syscall($SYS_SIGPROCMASK, $SIG_SETMASK, $empty, 0, 8) == 0 or stage_failed($key, 'sigprocmask', $! + 0);
}

# The stage: PID 1 of its own namespace, leader of its own session and process group (the server signals it).
# $key names it in a report ("<call> <stage>"); a spare (below) is $ready: it made its session and reset its
# signal state when it was forked.
sub exec_stage {
  my ($key, $stage, $env, $in, $out, $err, $dir, $ready) = @_;
  my ($file, $argv0, @args) = @$stage;
  $ready or syscall($SYS_SETSID) > 0 or stage_failed($key, 'setsid', $! + 0);
  # dup3 (dup2 is not on every ABI): our descriptors are all above 2, so never the same number.
  syscall($SYS_DUP3, fileno($in), 0, 0) == 0 or stage_failed($key, 'dup', $! + 0);
  syscall($SYS_DUP3, fileno($out), 1, 0) == 1 or stage_failed($key, 'dup', $! + 0);
  syscall($SYS_DUP3, fileno($err), 2, 0) == 2 or stage_failed($key, 'dup', $! + 0);
  # Every descriptor perl opened is close-on-exec (other calls' pipes included) and the inherited ones were
  # closed at start; close_range(3, ~0, CLOSE_RANGE_CLOEXEC) makes sure of it in one call (Linux 5.9+).
  syscall($SYS_CLOSE_RANGE, 3, 0xFFFFFFFF, 4);
  reset_signals($key) unless $ready;
  # The checked working directory, by the descriptor the server held (the same inode, not a name looked up).
  chdir($dir) or stage_failed($key, 'chdir', $! + 0); # fchdir to the held descriptor: no path walk through /proc
  # A path (the server always sends the one it judged): execve with the environment as given, which a forked
  # perl does far cheaper than through %ENV. ENOEXEC (a script without #!) and a bare name go the execvp way below:
  # /bin/sh for the first, the PATH of the command's environment for the second, as Node's spawn does.
  if (index($file, '/') >= 0) {
    my $argvp = pack('p*', $argv0, @args, undef);
    my $envp = pack('p*', @$env, undef);
    syscall($SYS_EXECVE, $file, $argvp, $envp);
    stage_failed($key, 'exec', $! + 0) unless $! == $ENOEXEC;
  }
  %ENV = ();
  for (@$env) { my ($k, $v) = split /=/, $_, 2; $ENV{$k} = $v }
  exec { $file } $argv0, @args or stage_failed($key, 'exec', $! + 0);
}

# A stage that could not start says why (one short line) and ends as a command not found does (127): the step
# and the errno as a number (the server names it: Perl's names come from Errno.pm, which with Exporter.pm would
# add ~190 KB to the heap of the zygote, and so to every fork), or a refusal's words.
sub stage_failed {
  my ($key, $step, $errno) = @_;
  syswrite($rep_w, "$key $step $errno\n");
  _exit(127);
}

# Every child not reaped yet, by its pid in Z: [call id, stage, pid on the host].
my (%stage_of, %errors, %held, %trial_status);
my $rep_buf = '';

sub fail { out("F $_[0] $_[1]\n"); return }

# The object at $path, opened with $flags, only when it is the one the server checked and holds open ($want:
# "device:inode", or '-' for no check): a name swapped for something else meanwhile is refused, not followed.
sub open_held {
  my ($path, $flags, $want) = @_;
  sysopen(my $fh, $path, $flags) or return (undef, "$!");
  return ($fh) if $want eq '-';
  my ($dev, $ino) = stat($fh);
  return (undef, 'it is not the one that was checked (it changed meanwhile)') unless defined $ino && "$dev:$ino" eq $want;
  return ($fh);
}

# A checked output file (see open_held), opened non-blocking so that a FIFO swapped in cannot hold us at open(),
# then made blocking for the command's writes.
sub open_output {
  my ($path, $want, $append) = @_;
  my ($fh, $why) = open_held($path, $O_WRONLY | $O_NONBLOCK | $O_NOFOLLOW | ($append ? $O_APPEND : 0), $want);
  return (undef, $why) unless $fh;
  fcntl($fh, $F_SETFL, (fcntl($fh, $F_GETFL, 0) + 0) & ~$O_NONBLOCK);
  return ($fh);
}

# The environment and the stages of a request, from the fields after the append flag:
#   n, environment entries (n), stages, then per stage: file, argv0, n, arguments (n)
sub environment_and_stages {
  my @f = @_;
  my @env = splice(@f, 0, shift(@f) // 0);
  my @stages;
  for (1 .. (shift(@f) // 0)) {
    my ($file, $argv0, $n) = splice(@f, 0, 3);
    push @stages, [$file, $argv0, splice(@f, 0, $n // 0)];
  }
  return (\@env, \@stages);
}

# Forks a child as PID 1 of a new PID namespace inside Z, which runs $start->(@args) and never returns, and keeps
# it as stage $i of $id by its pid on the host. Returns that pid, or (undef, why).
sub fork_contained {
  my ($id, $i, $start, @args) = @_;
  syscall($SYS_UNSHARE, $CLONE_NEWPID) == 0 or return (undef, "unshare: $!");
  my $pid = fork();
  $start->(@args) if defined $pid && $pid == 0;
  my $why = defined $pid ? undef : "fork: $!"; # the message only when it failed (strerror and a string per fork)
  # Ours (Z) is the namespace for children again.
  syscall($SYS_SETNS, fileno($own_ns), $CLONE_NEWPID) == 0 or fatal("setns: $!");
  return (undef, $why) unless defined $pid;
  my $host = new_child_on_host();
  unless (defined $host) { kill('KILL', $pid); return (undef, "cannot tell the new process's pid on the host") }
  $stage_of{$pid} = [$id, $i, $host];
  $on_host{$host} = 1;
  return $host;
}

# Starts one call: every stage of its pipeline, connected by pipes made here.
#   S, id, cwd path, cwd identity, stdin ('null' | 'pipe'), stdout ('pipe' | path), stdout identity, append (0|1),
#   n, environment entries (n), stages, then per stage: file, argv0, n, arguments (n)
sub spawn_call {
  my ($id, $cwd, $cwd_id, $stdin, $stdout, $stdout_id, $append, @f) = @_;
  my ($env, $stages) = environment_and_stages(@f);
  my @stages = @$stages;
  return fail($id, 'empty pipeline') unless @stages;
  my ($dir, $why_dir) = open_held($cwd, $O_PATH | $O_DIRECTORY, $cwd_id);
  return fail($id, "cannot use the working directory $cwd: $why_dir") unless $dir;
  my (@held, $in, $in_server, $out, $out_server);
  if ($stdin eq 'pipe') { pipe($in, $in_server) or return fail($id, "pipe: $!"); push @held, $in_server }
  else { $in = $DEVNULL }
  if ($stdout eq 'pipe') { pipe($out_server, $out) or return fail($id, "pipe: $!"); push @held, $out_server }
  else {
    ($out, my $why_out) = open_output($stdout, $stdout_id, $append);
    return fail($id, "cannot use the output file $stdout: $why_out") unless $out;
  }
  my (@pids, @errs, $why);
  my $prev = $in;
  for my $i (0 .. $#stages) {
    my ($next_r, $to_next, $err_server, $err);
    if ($i < $#stages && !pipe($next_r, $to_next)) { $why = "pipe: $!"; last }
    unless (pipe($err_server, $err)) { $why = "pipe: $!"; last }
    push @held, $err_server;
    push @errs, fileno($err_server);
    (my $host, $why) = fork_contained($id, $i, \&exec_stage, "$id $i", $stages[$i], $env, $prev, $i < $#stages ? $to_next : $out, $err, $dir);
    last unless defined $host;
    push @pids, $host;
    close($err);
    close($prev) unless $prev == $DEVNULL;
    close($to_next) if $to_next;
    $prev = $next_r;
  }
  close($prev) if $prev && $prev != $DEVNULL;
  close($out);
  close($dir);
  if (@pids < @stages) {
    kill('KILL', $_) for grep { $stage_of{$_}[0] eq $id } keys %stage_of; # their X lines follow; the server has forgotten the id
    close($_) for @held;
    return fail($id, "cannot start the pipeline: $why");
  }
  $held{$id} = \@held;
  out(join(' ', 'S', $id, join(',', @pids), $in_server ? fileno($in_server) : '-', $out_server ? fileno($out_server) : '-', join(',', @errs)) . "\n");
}

# --- spares: a one-stage call with no process to fork on its way -------------------------------------------------
# Between calls the zygote forks a spare: already PID 1 of its own namespace and leader of its own session, with
# the pipes of a command (output, errors) and a control pipe, whose server ends the server opens through
# /proc/<zygote>/fd ahead of time ("P <sid> <pid> <ctl> <out> <err>", then "A <sid>"). A one-stage call given no
# input (calls with input, and pipelines, take the zygote's own way) is written by the server straight to the
# spare's control pipe: no zygote, no fork between the request and the exec. The spare checks the working
# directory (and an output file) as the zygote would, against the objects the server holds open until the call
# ends, and reports as a stage ("X <sid> 0 ..."); a refusal is its start error. The server keeps two spares: it
# asks for another with "N" once a call on one has its answer (or has run on for a moment).
my $spare_n = 0;

# A spare's pipes are bare descriptors here (pipe2, close): a Perl handle for each of the six ends would be
# allocated and freed in the zygote on every spare, pages a fork then copies. The spare makes handles of its own.
my $pipe_fds = pack('x8'); # pipe2() writes the two descriptors here (a variable: syscall() writes into it)

sub raw_close { syscall($SYS_CLOSE, $_ + 0) for @_ }

# Closes what the zygote holds for a call or a spare: Perl handles, or bare descriptors (a spare's).
sub release { ref($_) ? close($_) : syscall($SYS_CLOSE, $_ + 0) for @_ }

sub fork_spare {
  my $sid = 'P' . ++$spare_n;
  my @fds;
  for (1 .. 3) {
    syscall($SYS_PIPE2, $pipe_fds, $O_CLOEXEC) == 0 or do { my $why = "pipe: $!"; raw_close(@fds); return fail($sid, $why) };
    push @fds, unpack('i2', $pipe_fds);
  }
  my ($ctl_r, $ctl_w, $out_r, $out_w, $err_r, $err_w) = @fds;
  my ($host, $why) = fork_contained($sid, 0, \&spare_main, $sid, $ctl_r, $out_w, $err_w);
  raw_close($ctl_r, $out_w, $err_w);
  unless (defined $host) { raw_close($ctl_w, $out_r, $err_r); return fail($sid, $why) }
  $held{$sid} = [$ctl_w, $out_r, $err_r];
  out("P $sid $host $ctl_w $out_r $err_r\n");
}

sub spare_main {
  my ($sid, @fds) = @_; # control (read), output and errors (write), as bare descriptors
  # Nothing of the zygote's: not its channel to the server (0, 1, 2), not another call's pipes, not another spare's.
  syscall($SYS_DUP3, fileno($DEVNULL), $_, 0) for 0, 1, 2;
  close_all_but(0, 1, 2, @fds, fileno($rep_w), fileno($DEVNULL));
  my ($ctl, $out, $err);
  open($ctl, '<&=', $fds[0]) && open($out, '>&=', $fds[1]) && open($err, '>&=', $fds[2]) or stage_failed("$sid 0", 'fdopen', $! + 0);
  # Made ready now, not on the call's way: its session, and the signal state a command starts with.
  syscall($SYS_SETSID) > 0 or stage_failed("$sid 0", 'setsid', $! + 0);
  reset_signals("$sid 0");
  my ($buf, $got) = ('', 0);
  while (1) {
    $got = sysread($ctl, $buf, 65536, length $buf);
    _exit(0) unless $got; # the server let go of this spare (it shuts down)
    last if $buf =~ /^(\d+)\n/ && length($buf) >= length($1) + 1 + $1;
  }
  spare_order($sid, $buf, $out, $err);
  _exit(127); # not reached: spare_order execs or reports
}

# The one order a spare takes: checked, then exec'd (or refused, and reported as the stage's start error).
sub spare_order {
  my ($sid, $buf, $out, $err) = @_;
  my ($len) = $buf =~ /^(\d+)\n/;
  # The same request as for the zygote, with one stage.
  my ($id, $cwd, $cwd_id, $stdin, $stdout, $stdout_id, $append, @f) = split /\0/, substr($buf, length($len) + 1, $len), -1;
  my ($env, $stages) = environment_and_stages(@f);
  my $key = "$sid 0";
  stage_failed($key, 'refuse', "a spare runs one stage given no input") unless @$stages == 1 && $stdin eq 'null';
  my ($dir, $why_dir) = open_held($cwd, $O_PATH | $O_DIRECTORY, $cwd_id);
  stage_failed($key, 'refuse', "cannot use the working directory $cwd: $why_dir") unless $dir;
  my $to = $out;
  if ($stdout ne 'pipe') {
    ($to, my $why_out) = open_output($stdout, $stdout_id, $append);
    stage_failed($key, 'refuse', "cannot use the output file $stdout: $why_out") unless $to;
  }
  exec_stage($key, $stages->[0], $env, $DEVNULL, $to, $err, $dir, 1);
}

sub drain_reports {
  1 while sysread($rep_r, $rep_buf, 4096, length $rep_buf);
  while ($rep_buf =~ s/^(\S+) (\S+) ([^\n]*)\n//) { $errors{"$1 $2"} //= $3 }
}

sub reap {
  while ((my $k = waitpid(-1, $WNOHANG)) > 0) {
    my $status = $?;
    my $who = delete $stage_of{$k} or next;
    delete $on_host{$who->[2]};
    drain_reports() if $status == 127 << 8; # a failed start wrote its line before it exited 127
    my $key = "$who->[0] $who->[1]";
    my $err = delete $errors{$key};
    $trial_status{$key} = $status if $trial;
    out("X $key $status" . (defined $err ? " $err" : '') . "\n");
  }
}

sub handle {
  my ($op, $id, @f) = split /\0/, $_[0], -1;
  if ($op eq 'S') { spawn_call($id, @f) }
  elsif ($op eq 'A') { release(map { @{ delete $held{$_} || [] } } $id, @f) } # A, id...
  elsif ($op eq 'N') { fork_spare() }
}

# --trial DIR ID CMD...: start one command in DIR (ID: its device:inode, or '-') exactly as every call starts,
# wait for it, exit with its exit status (125: it did not start). The probe runs `sh -c 'exit $(($$ + 2))'` in
# /, which exits 3 only as PID 1 of a new namespace.
if ($trial) {
  my ($cwd, $cwd_id, $file, @args) = @ARGV;
  spawn_call('trial', $cwd, $cwd_id, 'null', '/dev/null', '-', 0, 0, 1, $file, $file, scalar(@args), @args);
  _exit(125) unless %stage_of; # it did not start (the F line says why)
  close($_) for @{ delete $held{trial} || [] };
} else {
  out("READY $MODE $HOST_SELF\n");
  fork_spare();
}

# Requests are read into a chunk and appended, and whole frames are taken by position: cutting them off the
# front of one growing buffer made perl reallocate (and map anew) a larger buffer on every read.
my ($in_buf, $chunk, $junk) = ('', '', '');
my $rin = '';
vec($rin, fileno($chld), 1) = 1;
vec($rin, 0, 1) = 1 unless $trial;
while (1) {
  if ($trial && exists $trial_status{'trial 0'}) {
    my $raw = $trial_status{'trial 0'};
    _exit($raw & 127 ? 126 : $raw >> 8);
  }
  my $n = select(my $rout = $rin, undef, undef, undef);
  if ($n > 0 && vec($rout, 0, 1)) {
    my $got = sysread(STDIN, $chunk, 16384);
    _exit(0) if defined $got && $got == 0; # the server let go: Z, and every stage in it, ends with us
    $in_buf .= $chunk if $got;
    my $at = 0;
    while ((my $nl = index($in_buf, "\n", $at)) > $at) {
      my $len = substr($in_buf, $at, $nl - $at);
      fatal("a malformed request (length '$len')") unless $len =~ /^\d+$/;
      last if length($in_buf) < $nl + 1 + $len;
      handle(substr($in_buf, $nl + 1, $len));
      $at = $nl + 1 + $len;
    }
    $in_buf = $at < length($in_buf) ? substr($in_buf, $at) : '' if $at;
  }
  1 while sysread($chld, $junk, 4096); # the signals read (128 bytes each); reap() asks the kernel who ended
  reap();
}
