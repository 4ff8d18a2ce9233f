# Guarded Shell's fork server (src/core/exec/launch/forkServer.ts): a small Perl process per server that forks each
# stage of a call, so that the server (a large Node process) does not fork per command. It is PID 1 of a PID
# namespace of its own (unshare made it; not as root, inside a user namespace where the server's uid is root) and
# dies with the server. Each stage it forks makes namespaces of the stage's own (PID and mount, and not as root a user
# namespace mapping the server's uid only), whose PID 1 is a fork of this program holding the capabilities the
# command lacks, with that namespace's /proc: so a command never sees this process, the server, or another call, and
# cannot trace or open its own PID 1. No exec but the command's own: what util-linux's unshare and setpriv would do
# in two more execs, done here by system calls whose numbers come from the system's own syscall.ph (h2ph's, shipped
# with Perl); where that is missing, the fork server does not start and the launcher takes its exec chain instead.
#
# Orders on fd 0, frames "<length>\n<payload>", the payload's fields separated by NUL:
#   S id cwd cwd-dev:ino stdin(null|pipe) stdout(pipe|path) stdout-dev:ino|- append(0|1) nenv env... nstages
#     (nargs args...)...        start a call; each stage's argv is the command's own
#   A id                        the server opened its ends of the call's pipes: close ours
#   M id n                      make n pipes for a call whose stages the server spawns itself (Node's own "pipes"
#                               are socket pairs: a reader that ends early would reset the writer, not SIGPIPE it)
# Replies on fd 1, lines:
#   READY <pid on the host>     the server opens its pipe ends through /proc/<that pid>/fd
#   S id pid,... in out err,... started: each stage's pid on the host (its process group), and this process's
#                               descriptors of the server's pipe ends ('-' for none)
#   F id <why>                  nothing of the call runs
#   M id r,w r,w...             the pipes made, by this process's descriptors (kept until "A")
#   X id stage <wait status>    a stage ended (its command's own status: exit code or signal)
use strict;

$0 = 'guarded-shell-launcher';
my ($O_WRONLY, $O_APPEND, $O_NOFOLLOW, $O_NONBLOCK) = map { $_ + 0 } split /,/, ($ARGV[0] // '');
# "root", or "<uid>:<gid>" on the host: each stage's user namespace maps that uid and gid only (to this root).
my ($uid, $gid) = ($ARGV[1] // '') =~ /\A(\d+):(\d+)\z/;
# --trial (the start-up probe's blocking run): at the end of the orders, wait for the stages instead of leaving.
my $trial = ($ARGV[2] // '') eq '--trial';
my ($F_GETFL, $F_SETFL, $WNOHANG) = (3, 4, 1); # the same on every Linux ABI
# Flags and prctl options: the same on every Linux ABI (linux/sched.h, linux/mount.h, linux/prctl.h).
my ($CLONE_NEWNS, $CLONE_NEWUSER, $CLONE_NEWPID) = (0x20000, 0x10000000, 0x20000000);
my ($MS_NOSUID, $MS_NODEV, $MS_NOEXEC, $MS_REC, $MS_SLAVE) = (2, 4, 8, 0x4000, 0x80000);
my ($PR_SET_PDEATHSIG, $PR_SET_DUMPABLE, $PR_CAPBSET_READ, $PR_CAPBSET_DROP, $PR_SET_NO_NEW_PRIVS, $PR_CAP_AMBIENT) = (1, 4, 23, 24, 38, 47);
my $CAP_V3 = 0x20080522;

# The system call numbers, which differ by ABI: from the system's syscall.ph, read in a child so that this process
# keeps none of what loading it costs (a few MB, forked again with every stage).
my ($NR_unshare, $NR_mount, $NR_capset, $NR_prctl, $NR_close, $NR_exit_group) = do {
  pipe(my $r, my $w) or die "pipe: $!\n";
  my $pid = fork() // die "fork: $!\n";
  if (!$pid) { close $r; my @n = eval { require 'syscall.ph'; (&SYS_unshare, &SYS_mount, &SYS_capset, &SYS_prctl, &SYS_close, &SYS_exit_group) }; syswrite($w, join(',', @n)); CORE::exit(0) }
  close $w;
  my $got = <$r> // '';
  waitpid($pid, 0);
  my @n = split /,/, $got;
  @n == 6 && !grep { !/\A\d+\z/ } @n or die "no system call numbers (perl's syscall.ph is missing)\n";
  @n
};

sub out { syswrite(STDOUT, $_[0]) }
sub host_pid { open(my $s, '<', '/proc/self/stat') or return 0; my ($pid) = split / /, scalar <$s>; $pid }
sub identity { my @st = stat($_[0]); @st ? "$st[0]:$st[1]" : '' }

my %stage_of;  # pid here -> [call id, stage index]
my %held;      # call id -> the server's ends, kept until the server opened its own ("A")
pipe(my $wake_r, my $wake_w) or die;
$SIG{CHLD} = sub { syswrite($wake_w, 'c') };
$SIG{PIPE} = 'IGNORE';

sub reap {
  while ((my $pid = waitpid(-1, $WNOHANG)) > 0) {
    my $st = $?;
    my $t = delete $stage_of{$pid} or next;
    out("X $t->[0] $t->[1] $st\n");
  }
  # The next spare, made once a call has ended (made while that call's command runs, it would take the CPU from it;
  # another call still running, a background one, must not keep every later call from having one).
  make_spare();
}

sub check { $_[0] >= 0 or die "$_[1]: $!\n" }
# A stage's processes close every inherited descriptor by number (below), behind Perl's back: from then on they close
# and exit by system call too (Perl's own close and exit would count, and close, by its stale handles).
sub rclose { syscall($NR_close, fileno($_) + 0) for @_ }
sub quit { syscall($NR_exit_group, $_[0] + 0); CORE::exit($_[0]) }
sub write_file { my $f; open($f, '>', $_[0]) && syswrite($f, $_[1]) && close($f) or die "$_[0]: $!\n" }

# What the command's exit status was, as its own parent saw it: an exit code, or the signal it died of (sent again to
# this process, which is no namespace's init and so dies of it; not dumpable: no core file of Perl's).
sub end_as {
  my $st = shift;
  quit($st >> 8) unless $st & 127;
  syscall($NR_prctl, $PR_SET_DUMPABLE, 0, 0, 0, 0);
  $SIG{$_} = 'DEFAULT' for keys %SIG;
  kill($st & 127, $$);
  quit(128 + ($st & 127));
}

# The command: no capability left, none to gain (an empty bounding set and no_new_privs: even root's exec gets none),
# signals as a shell leaves them, then exec.
sub command {
  my ($stdin, $env, $argv) = @_;
  $SIG{$_} = 'DEFAULT' for keys %SIG;
  if ($stdin eq 'null') { open(STDIN, '<', '/dev/null') or die "/dev/null: $!\n" }
  for (my $cap = 0; syscall($NR_prctl, $PR_CAPBSET_READ, $cap, 0, 0, 0) >= 0; $cap++) { check(syscall($NR_prctl, $PR_CAPBSET_DROP, $cap, 0, 0, 0), 'drop a capability') }
  # (EINVAL: a kernel before 4.3, which has no ambient set to clear.)
  syscall($NR_prctl, $PR_CAP_AMBIENT, 4, 0, 0, 0) >= 0 or $! == 22 or die "clear the ambient capabilities: $!\n";
  check(syscall($NR_prctl, $PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), 'no_new_privs');
  my ($header, $none) = (pack('LL', $CAP_V3, 0), pack('L6', (0) x 6));
  check(syscall($NR_capset, $header, $none), 'drop capabilities');
  %ENV = %$env;
  exec { $argv->[0] } @$argv;
  syswrite(STDERR, "guarded-shell: cannot run $argv->[0]: $!\n");
  quit(127);
}

# PID 1 of a stage's namespaces: dies with the stage's process (its parent, outside), mounts the namespace's /proc over
# the host's (host mounts propagate in, none out), says so on $ready, then reaps whatever is orphaned in here. When it
# is killed (the command has ended), the kernel ends everything left in its namespace. It keeps every capability the
# command lacks: the kernel refuses the command every trace of it and open of its /proc/1/*, and drops a signal the
# command sends it, as for any init.
sub init {
  my $ready = shift;
  $0 = 'guarded-shell-init';
  check(syscall($NR_prctl, $PR_SET_PDEATHSIG, 9, 0, 0, 0), 'parent-death signal');
  # (Variables: Perl passes a string to a system call as a pointer to a buffer it may write, never a constant.)
  my ($none, $root, $proc, $at) = ('none', '/', 'proc', '/proc');
  check(syscall($NR_mount, $none, $root, 0, $MS_REC | $MS_SLAVE, 0), 'make the mounts private');
  check(syscall($NR_mount, $proc, $at, $proc, $MS_NOSUID | $MS_NODEV | $MS_NOEXEC, 0), 'mount /proc');
  syswrite($ready, 'm');
  rclose($ready);
  $SIG{CHLD} = sub { 1 while waitpid(-1, $WNOHANG) > 0 };
  select(undef, undef, undef, 3600) while 1;
}

# One frame ("<length>\n<payload>") from a pipe, or undef at its end.
sub read_frame {
  my ($h, $buf) = (shift, '');
  until ($buf =~ /\A(\d+)\n/ && length($buf) >= length($1) + 1 + $1) { sysread($h, $buf, 65536, length $buf) or return undef }
  $buf =~ /\A(\d+)\n/;
  return substr($buf, length($1) + 1, $1);
}
sub frame { my $p = join("\0", @_); length($p) . "\n" . $p }

# A stage's process, forked ahead of its call (a spare, with pipes of its own for the command's 0/1/2) or for it
# (with the call's): its own process group, the descriptors as 0/1/2 and nothing else of this fork server's, then
# namespaces of its own (PID, mount, not as root user) with their init (above). Says "H<pid on the host>" on $replies
# once ready, then waits for its one order on $orders (the checked folder, stdin, environment, argv), checks the
# folder ("R why", or "P"), forks the command (PID 2 of the namespace) and ends as it did, killing the init (and with
# it whatever is left in the namespace). It leaves the signals a command's group gets to the command (SIGKILL alone
# ends this process, and with it the init and the namespace).
sub stage_process {
  my ($orders, $replies, $in, $outh, $err) = @_;
  $SIG{$_} = 'DEFAULT' for qw(CHLD PIPE);
  $SIG{$_} = 'IGNORE' for qw(HUP INT QUIT TERM);
  open(STDIN, '<&', $in) && open(STDOUT, '>&', $outh) && open(STDERR, '>&', $err) or do { syswrite($replies, "E dup $!\n"); CORE::exit(127) };
  setpgrp(0, 0);
  my $host = host_pid();
  eval {
    # Nothing of this fork server's but the call's 0/1/2 and this process's two pipes stays open: this process and the
    # init live as long as the command (another call's pipe end held here would never see its end).
    my %keep = map { fileno($_) => 1 } $orders, $replies;
    opendir(my $fds, '/proc/self/fd') or die "/proc/self/fd: $!\n";
    my @open = grep { /\A\d+\z/ && $_ > 2 && !$keep{$_} } readdir($fds);
    closedir($fds);
    syscall($NR_close, $_ + 0) for @open;
    check(syscall($NR_unshare, $CLONE_NEWPID | $CLONE_NEWNS | (defined $uid ? $CLONE_NEWUSER : 0), 0), 'unshare');
    if (defined $uid) {
      write_file('/proc/self/setgroups', 'deny');
      write_file('/proc/self/uid_map', "$uid 0 1");
      write_file('/proc/self/gid_map', "$gid 0 1");
    }
    pipe(my $r, my $w) or die "pipe: $!\n";
    my $init = fork() // die "fork: $!\n";
    if (!$init) { rclose($r, $orders, $replies); eval { init($w) }; syswrite(STDERR, "guarded-shell: cannot contain the command: $@"); quit(127) }
    rclose($w);
    sysread($r, my $mounted, 1) or die "its namespace's init ended\n";
    rclose($r);
    syswrite($replies, "H$host\n");
    my $order = read_frame($orders) // quit(0); # no call came (the fork server ended, or dropped this spare)
    my ($cwd, $cwd_id, $stdin, $nenv, @f) = split /\0/, $order, -1;
    my %env = map { split /=/, $_, 2 } splice(@f, 0, $nenv);
    unless (chdir($cwd) && identity('.') eq $cwd_id) { syswrite($replies, "R the working directory $cwd is not the one that was checked\n"); quit(127) }
    syswrite($replies, "P\n");
    rclose($orders, $replies);
    my $pid = fork() // die "fork: $!\n";
    command($stdin, \%env, \@f) unless $pid;
    waitpid($pid, 0);
    my $st = $?;
    # The init's death ends whatever is left in the namespace: waited for, so that nothing of the call runs once its
    # end is reported.
    kill('KILL', $init);
    waitpid($init, 0);
    end_as($st);
  };
  syswrite(STDERR, "guarded-shell: cannot contain the command: $@");
  quit(127);
}

# Forks a stage's process with these descriptors for its command; its handles here (ready() reads its "H").
sub new_stage_process {
  my ($in, $outh, $err) = @_;
  pipe(my $or, my $ow) or return;
  pipe(my $rr, my $rw) or return;
  my $pid = fork() // return;
  if (!$pid) { stage_process($or, $rw, $in, $outh, $err) }
  close $or;
  close $rw;
  return { pid => $pid, orders => $ow, replies => $rr };
}
sub ready { my $p = shift; $p->{host} //= do { my $said = readline($p->{replies}) // ''; $said =~ /\AH(\d+)\n\z/ ? $1 : undef } }

# Gives a ready stage process its order; undef once it runs its command, else why not.
sub give {
  my ($p, $cwd, $cwd_id, $stdin, $env, $argv) = @_;
  syswrite($p->{orders}, frame($cwd, $cwd_id, $stdin, scalar(keys %$env), (map { "$_=$env->{$_}" } keys %$env), @$argv));
  my $said = readline($p->{replies}) // '';
  close $p->{orders};
  close $p->{replies};
  return undef if $said eq "P\n";
  waitpid($p->{pid}, 0);
  return $said =~ /^R (.*)$/ ? "refuse $1" : $said =~ /^E (.*)$/ ? $1 : 'the stage ended before its exec';
}

# One spare kept ready (a single-stage call with its output to a pipe, the usual one, takes it): making a stage's
# namespaces and their init costs two forks, done here between calls instead of in a call's start.
my $spare;
sub make_spare {
  return if $spare || $trial;
  my (@r, @w);
  for (0 .. 2) { pipe($r[$_], $w[$_]) or return }
  my $p = new_stage_process($r[0], $w[1], $w[2]) or return;
  close $_ for $r[0], $w[1], $w[2];
  $spare = { %$p, in => $w[0], out => $r[1], err => $r[2] };
}

sub start {
  my ($id, $cwd, $cwd_id, $stdin, $stdout, $out_id, $append, $env, $stages) = @_;
  my $fd = sub { defined $_[0] ? fileno($_[0]) : '-' };
  if (@$stages == 1 && $stdout eq 'pipe' && $spare) {
    my $p = $spare;
    undef $spare;
    if (ready($p)) {
      my $why = give($p, $cwd, $cwd_id, $stdin, $env, $stages->[0]);
      if (defined $why) { close $_ for @$p{qw(in out err)}; make_spare(); return out("F $id $why\n") }
      $stage_of{$p->{pid}} = [$id, 0];
      my $in = $stdin eq 'pipe' ? $p->{in} : undef;
      $held{$id} = [grep { defined } $in, $p->{out}, $p->{err}];
      return out("S $id $p->{host} " . $fd->($in) . ' ' . $fd->($p->{out}) . ' ' . $fd->($p->{err}) . "\n");
    }
    waitpid($p->{pid}, 0);
    close $_ for @$p{qw(in out err orders replies)};
  }
  my (@mine, @theirs, @pids, @here, @in, @outs, @errs, $server_in, $server_out);
  my $fail = sub { kill('KILL', -$_) for @here; out("F $id $_[0]\n"); return };
  if ($stdin eq 'pipe') { pipe(my $r, my $w) or return $fail->("pipe $!"); push @mine, $r; $in[0] = $r; $server_in = $w }
  else { open(my $null, '<', '/dev/null') or return $fail->("open /dev/null $!"); push @mine, $null; $in[0] = $null }
  if ($stdout eq 'pipe') { pipe(my $r, my $w) or return $fail->("pipe $!"); push @mine, $w; $outs[$#$stages] = $w; $server_out = $r }
  else {
    # The output file the server opened and checked, opened again by its path and accepted only as that file.
    sysopen(my $f, $stdout, $O_WRONLY | $O_NOFOLLOW | $O_NONBLOCK | ($append ? $O_APPEND : 0)) or return $fail->("refuse the output file $stdout cannot be opened: $!");
    return $fail->("refuse the output file $stdout is not the one that was checked") unless identity($f) eq $out_id;
    fcntl($f, $F_SETFL, (fcntl($f, $F_GETFL, 0) + 0) & ~$O_NONBLOCK);
    push @mine, $f;
    $outs[$#$stages] = $f;
  }
  for my $i (0 .. $#$stages - 1) { pipe(my $r, my $w) or return $fail->("pipe $!"); push @mine, $r, $w; $outs[$i] = $w; $in[$i + 1] = $r }
  for my $i (0 .. $#$stages) { pipe(my $r, my $w) or return $fail->("pipe $!"); push @mine, $w; $errs[$i] = $w; push @theirs, $r }
  for my $i (0 .. $#$stages) {
    my $p = new_stage_process($in[$i], $outs[$i], $errs[$i]) or return $fail->("fork $!");
    return $fail->('the stage ended before its exec') unless ready($p);
    my $why = give($p, $cwd, $cwd_id, 'inherit', $env, $stages->[$i]);
    return $fail->($why) if defined $why;
    $stage_of{$p->{pid}} = [$id, $i];
    push @here, $p->{pid};
    push @pids, $p->{host};
  }
  close $_ for @mine; # the stages hold them now
  $held{$id} = [grep { defined } $server_in, $server_out, @theirs];
  out("S $id " . join(',', @pids) . ' ' . $fd->($server_in) . ' ' . $fd->($server_out) . ' ' . join(',', map { fileno($_) } @theirs) . "\n");
}

sub order {
  my @f = split /\0/, $_[0], -1;
  my $verb = shift @f;
  if ($verb eq 'A') { delete $held{$_} for @f; return }
  if ($verb eq 'M') {
    my ($id, $n) = @f;
    my @ends;
    for (1 .. $n) { pipe(my $r, my $w) or return out("F $id pipe $!\n"); push @ends, $r, $w }
    $held{$id} = \@ends;
    return out("M $id " . join(' ', map { fileno($ends[2 * $_]) . ',' . fileno($ends[2 * $_ + 1]) } 0 .. $n - 1) . "\n");
  }
  my ($id, $cwd, $cwd_id, $stdin, $stdout, $out_id, $append, $nenv) = splice(@f, 0, 8);
  my %env = map { split /=/, $_, 2 } splice(@f, 0, $nenv);
  my @stages;
  for (1 .. shift @f) { my $n = shift @f; push @stages, [splice(@f, 0, $n)] }
  start($id, $cwd, $cwd_id, $stdin, $stdout, $out_id, $append, \%env, \@stages);
}

out('READY ' . host_pid() . "\n");
make_spare();
my $buf = '';
while (1) {
  my $rin = '';
  vec($rin, fileno(STDIN), 1) = 1;
  vec($rin, fileno($wake_r), 1) = 1;
  next if select(my $rout = $rin, undef, undef, undef) <= 0;
  if (vec($rout, fileno($wake_r), 1)) { sysread($wake_r, my $x, 512); reap() }
  next unless vec($rout, fileno(STDIN), 1);
  my $got = sysread(STDIN, $buf, 65536, length $buf);
  unless ($got) {
    # The server is gone: so is this namespace, with every stage in it. (A trial first waits for its stage.)
    while ($trial && %stage_of && (my $pid = waitpid(-1, 0)) > 0) { my $t = delete $stage_of{$pid}; out("X $t->[0] $t->[1] $?\n") if $t }
    exit 0;
  }
  while ($buf =~ /^(\d+)\n/ && length($buf) >= length($1) + 1 + $1) {
    my $len = $1;
    my $payload = substr($buf, length($len) + 1, $len);
    substr($buf, 0, length($len) + 1 + $len) = '';
    order($payload);
  }
}
