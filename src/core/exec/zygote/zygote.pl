# Guarded Shell's containment zygote (see src/core/exec/zygote/client.ts): one small, long-lived process per
# server that starts every stage of a call as PID 1 of a NEW PID namespace by a plain fork, so that nothing of
# the call outlives it, without one more exec per command. Perl because it is on every Debian/Ubuntu system
# (perl-base is Essential) and can make the system calls Node cannot (unshare, setns, prctl); core modules only.
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
#                             through /proc/<zygote>/fd/N, then sends "A <id>" and the zygote closes its copies
#   F <id> <why>              nothing of the call was started
#   X <id> <stage> <wait status> [<step> <errno name>]
#                             a stage ended (wait status as Perl's $?); the step that failed before exec, if any
use strict;
use warnings;
use Config;
use POSIX ();
use Fcntl qw(O_WRONLY O_APPEND O_DIRECTORY O_NOFOLLOW F_GETFL F_SETFL O_NONBLOCK);

$0 = 'guarded-shell-zygote';
my $CLONE_NEWPID = 0x20000000;
my $CLONE_NEWUSER = 0x10000000;
my $O_PATH = 010000000;
my ($PR_SET_PDEATHSIG, $PR_SET_DUMPABLE) = (1, 4);

# System call numbers (unshare, prctl, setns) of the ABI this perl was built for; an unknown one refuses to start.
my %SYSCALLS = (
  x86_64 => [272, 157, 308], aarch64 => [97, 167, 268], riscv64 => [97, 167, 268], loongarch64 => [97, 167, 268],
  i386 => [310, 172, 346], i486 => [310, 172, 346], i586 => [310, 172, 346], i686 => [310, 172, 346],
  arm => [337, 172, 375], powerpc64le => [282, 171, 350], powerpc64 => [282, 171, 350], s390x => [303, 172, 339],
);
my ($arch) = split /-/, $Config{archname};
$arch = 'arm' if $arch =~ /^arm/;
my ($SYS_UNSHARE, $SYS_PRCTL, $SYS_SETNS) = @{ $SYSCALLS{$arch} || [] };

my $trial = @ARGV && $ARGV[0] eq '--trial';
shift @ARGV if $trial;
my $uid = $<;
my ($gid) = split ' ', $(;

sub out { syswrite(STDOUT, $_[0]) }
sub fatal { out("FAIL $_[0]\n"); POSIX::_exit(1) }
sub nonblocking { my ($fh) = @_; fcntl($fh, F_SETFL, fcntl($fh, F_GETFL, 0) | O_NONBLOCK) }
sub die_with_parent { syscall($SYS_PRCTL, $PR_SET_PDEATHSIG, 9, 0, 0, 0) == 0 }

fatal("no known system call numbers for $arch") unless defined $SYS_UNSHARE;
my $server = getppid();
fatal("prctl(PR_SET_PDEATHSIG): $!") unless die_with_parent();
POSIX::_exit(0) if getppid() != $server; # the server died before we could follow it

# Descriptors a process above the server left open without close-on-exec must reach neither us nor a stage.
sub close_inherited {
  my %keep = map { $_ => 1 } 0, 1, 2, @_;
  opendir(my $dh, '/proc/self/fd') or return;
  my @fds = grep { /^\d+$/ && !$keep{$_} } readdir($dh);
  my $own = fileno($dh);
  closedir($dh);
  POSIX::close($_) for grep { $_ != $own } @fds;
}
close_inherited();

sub write_file {
  my ($file, $text) = @_;
  open(my $fh, '>', $file) or return $!{ENOENT} && $file =~ /setgroups$/; # kernels before 3.19 lack it
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
  POSIX::_exit($? & 127 ? 126 : $? >> 8);
}

# --- the zygote: PID 1 of Z ---
close($life_w);
POSIX::_exit(0) unless die_with_parent();
nonblocking($life_r);
POSIX::_exit(0) if defined(sysread($life_r, my $byte, 1)); # EOF: Z0 died before PDEATHSIG was set
syscall($SYS_PRCTL, $PR_SET_DUMPABLE, 1, 0, 0, 0); # entering a user namespace made us undumpable: the server
                                                   # opens our pipe ends through /proc/<zygote>/fd
open(my $own_ns, '<', '/proc/self/ns/pid') or fatal("/proc/self/ns/pid: $!");
# Our children's pids as the HOST sees them (the server signals those; fork returns the pid inside Z): /proc is
# the host's, so its list of our children is in host numbers.
my $HOST_SELF = readlink('/proc/self') or fatal("/proc/self: $!");
my $CHILDREN = "/proc/$HOST_SELF/task/$HOST_SELF/children";
-r $CHILDREN or fatal("$CHILDREN is missing (a kernel without CONFIG_PROC_CHILDREN)");
my %host_pid; # pid in Z -> pid on the host, for every child not reaped yet

sub new_child_on_host {
  open(my $fh, '<', $CHILDREN) or return;
  my %known = map { $_ => 1 } values %host_pid;
  my @new = grep { !$known{$_} } split ' ', (<$fh> // '');
  return @new == 1 ? $new[0] : undef;
}

pipe(my $rep_r, my $rep_w) or fatal("pipe: $!");   # a stage that fails before exec says why (one short line)
pipe(my $wake_r, my $wake_w) or fatal("pipe: $!"); # SIGCHLD wakes select (self-pipe)
nonblocking($_) for $rep_r, $wake_r, $wake_w;
$SIG{CHLD} = sub { syswrite($wake_w, 'x') };
$SIG{PIPE} = 'IGNORE';

sub errno_name {
  local $! = $_[0];
  for my $name (keys %!) { return $name if $!{$name} }
  return "errno$_[0]";
}

# The stage: PID 1 of its own namespace, leader of its own session and process group (the server signals it).
sub exec_stage {
  my ($id, $i, $stage, $env, $in, $out, $err, $dir) = @_;
  my ($file, $argv0, @args) = @$stage;
  POSIX::setsid();
  POSIX::dup2(fileno($in), 0);
  POSIX::dup2(fileno($out), 1);
  POSIX::dup2(fileno($err), 2);
  # Every descriptor perl opened is close-on-exec (other calls' pipes included) and the inherited ones were
  # closed at start; close_range(3, ~0, CLOSE_RANGE_CLOEXEC) makes sure of it in one call (Linux 5.9+).
  syscall(436, 3, 0xFFFFFFFF, 4);
  # The only dispositions we changed (Node started us with every signal at its default): a handler ends with
  # exec anyway, but an ignored SIGPIPE would be inherited. Resetting all of %SIG here costs more than the exec.
  $SIG{CHLD} = 'DEFAULT';
  $SIG{PIPE} = 'DEFAULT';
  POSIX::sigprocmask(POSIX::SIG_SETMASK(), POSIX::SigSet->new());
  my $fail = sub { syswrite($rep_w, "$id $i $_[0] " . errno_name($_[1]) . "\n"); POSIX::_exit(127) };
  # The checked working directory, by the descriptor the server held (the same inode, not a name looked up).
  chdir('/proc/self/fd/' . fileno($dir)) or $fail->('chdir', $! + 0);
  %ENV = ();
  for (@$env) { my ($k, $v) = split /=/, $_, 2; $ENV{$k} = $v }
  { no warnings 'exec'; exec { $file } $argv0, @args; }
  $fail->('exec', $! + 0);
}

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

# Starts one call: every stage of its pipeline, connected by pipes made here.
#   S, id, cwd path, cwd identity, stdin ('null' | 'pipe'), stdout ('pipe' | path), stdout identity, append (0|1),
#   n, environment entries (n), stages, then per stage: file, argv0, n, arguments (n)
sub spawn_call {
  my ($id, $cwd, $cwd_id, $stdin, $stdout, $stdout_id, $append, @f) = @_;
  my @env = splice(@f, 0, shift(@f) // 0);
  my @stages;
  for (1 .. (shift(@f) // 0)) {
    my ($file, $argv0, $n) = splice(@f, 0, 3);
    push @stages, [$file, $argv0, splice(@f, 0, $n // 0)];
  }
  return fail($id, 'empty pipeline') unless @stages;
  my ($dir, $why_dir) = open_held($cwd, $O_PATH | O_DIRECTORY, $cwd_id);
  return fail($id, "cannot use the working directory $cwd: $why_dir") unless $dir;
  my (@held, $in, $in_server, $out, $out_server);
  if ($stdin eq 'pipe') { pipe($in, $in_server) or return fail($id, "pipe: $!"); push @held, $in_server }
  else { open($in, '<', '/dev/null') or return fail($id, "/dev/null: $!") }
  if ($stdout eq 'pipe') { pipe($out_server, $out) or return fail($id, "pipe: $!"); push @held, $out_server }
  else {
    # Non-blocking: a FIFO swapped in would otherwise hold us at open(); then blocking writes as usual.
    (my $file, my $why_out) = open_held($stdout, O_WRONLY | O_NONBLOCK | O_NOFOLLOW | ($append ? O_APPEND : 0), $stdout_id);
    return fail($id, "cannot use the output file $stdout: $why_out") unless $file;
    fcntl($file, F_SETFL, fcntl($file, F_GETFL, 0) & ~O_NONBLOCK);
    $out = $file;
  }
  my (@pids, @errs, $why);
  my $prev = $in;
  for my $i (0 .. $#stages) {
    my ($next_r, $to_next, $err_server, $err);
    if ($i < $#stages && !pipe($next_r, $to_next)) { $why = "pipe: $!"; last }
    unless (pipe($err_server, $err)) { $why = "pipe: $!"; last }
    push @held, $err_server;
    push @errs, fileno($err_server);
    # The next child starts a new namespace; afterwards ours (Z) is the one for children again.
    unless (syscall($SYS_UNSHARE, $CLONE_NEWPID) == 0) { $why = "unshare: $!"; last }
    my $pid = fork();
    $why = "fork: $!" unless defined $pid;
    exec_stage($id, $i, $stages[$i], \@env, $prev, $i < $#stages ? $to_next : $out, $err, $dir) if defined $pid && $pid == 0;
    syscall($SYS_SETNS, fileno($own_ns), $CLONE_NEWPID) == 0 or fatal("setns: $!");
    last unless defined $pid;
    my $host = new_child_on_host();
    unless (defined $host) { kill('KILL', $pid); $why = "cannot tell the new process's pid on the host"; last }
    $stage_of{$pid} = [$id, $i];
    $host_pid{$pid} = $host;
    push @pids, $host;
    close($err);
    close($prev);
    close($to_next) if $to_next;
    $prev = $next_r;
  }
  close($prev) if $prev;
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

sub drain_reports {
  1 while sysread($rep_r, $rep_buf, 65536, length $rep_buf);
  while ($rep_buf =~ s/^(\S+) (\S+) ([^\n]*)\n//) { $errors{"$1 $2"} //= $3 }
}

sub reap {
  while ((my $k = waitpid(-1, POSIX::WNOHANG())) > 0) {
    my $status = $?;
    delete $host_pid{$k};
    my $who = delete $stage_of{$k} or next;
    drain_reports(); # a failed start wrote its line before it exited
    my $key = "$who->[0] $who->[1]";
    my $err = delete $errors{$key};
    $trial_status{$key} = $status if $trial;
    out("X $key $status" . (defined $err ? " $err" : '') . "\n");
  }
}

sub handle {
  my ($op, $id, @f) = split /\0/, $_[0], -1;
  if ($op eq 'S') { spawn_call($id, @f) }
  elsif ($op eq 'A') { close($_) for @{ delete $held{$id} || [] } }
}

# --trial DIR ID CMD...: start one command in DIR (ID: its device:inode, or '-') exactly as every call starts,
# wait for it, exit with its exit status (125: it did not start). The probe runs `sh -c 'exit $(($$ + 2))'` in
# /, which exits 3 only as PID 1 of a new namespace.
if ($trial) {
  my ($cwd, $cwd_id, $file, @args) = @ARGV;
  spawn_call('trial', $cwd, $cwd_id, 'null', '/dev/null', '-', 0, 0, 1, $file, $file, scalar(@args), @args);
  POSIX::_exit(125) unless %stage_of; # it did not start (the F line says why)
  close($_) for @{ delete $held{trial} || [] };
} else {
  out("READY $MODE $HOST_SELF\n");
}

my $in_buf = '';
while (1) {
  if ($trial && exists $trial_status{'trial 0'}) {
    my $raw = $trial_status{'trial 0'};
    POSIX::_exit($raw & 127 ? 126 : $raw >> 8);
  }
  my $rin = '';
  vec($rin, fileno($wake_r), 1) = 1;
  vec($rin, 0, 1) = 1 unless $trial;
  my $n = select(my $rout = $rin, undef, undef, undef);
  if ($n > 0 && vec($rout, 0, 1)) {
    my $got = sysread(STDIN, $in_buf, 65536, length $in_buf);
    POSIX::_exit(0) if defined $got && $got == 0; # the server let go: Z, and every stage in it, ends with us
    while ($in_buf =~ /^(\d+)\n/ && length($in_buf) >= length($1) + 1 + $1) {
      my $len = $1;
      my $payload = substr($in_buf, length($len) + 1, $len);
      substr($in_buf, 0, length($len) + 1 + $len) = '';
      handle($payload);
    }
  }
  1 while sysread($wake_r, my $junk, 4096);
  reap();
}
