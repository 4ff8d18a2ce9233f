# Guarded Shell's fork server (src/core/exec/launch/forkServer.ts): a small Perl process per server that forks each
# stage of a call, so that the server (a large Node process) does not fork per command. It is PID 1 of a PID
# namespace of its own (unshare made it; not as root, inside a user namespace where the server's uid is root) and
# dies with the server; each stage it forks execs util-linux's unshare into namespaces of the stage's own (PID, mount
# with that namespace's /proc, and not as root a user namespace mapping the server's uid only), so a command never
# sees this process, the server, or another call. Plain Perl only: no module, no system call number.
#
# Orders on fd 0, frames "<length>\n<payload>", the payload's fields separated by NUL:
#   S id cwd cwd-dev:ino stdin(null|pipe) stdout(pipe|path) stdout-dev:ino|- append(0|1) nenv env... nstages
#     (nargs args...)...        start a call; each stage's argv is run as is (forkServer.ts prepared it)
#   A id                        the server opened its ends of the call's pipes: close ours
# Replies on fd 1, lines:
#   READY <pid on the host>     the server opens its pipe ends through /proc/<that pid>/fd
#   S id pid,... in out err,... started: each stage's pid on the host (its process group), and this process's
#                               descriptors of the server's pipe ends ('-' for none)
#   F id <why>                  nothing of the call runs
#   X id stage <wait status>    a stage ended
use strict;

$0 = 'guarded-shell-launcher';
my ($O_WRONLY, $O_APPEND, $O_NOFOLLOW, $O_NONBLOCK) = map { $_ + 0 } split /,/, ($ARGV[0] // '');
# --trial (the start-up probe's blocking run): at the end of the orders, wait for the stages instead of leaving.
my $trial = ($ARGV[1] // '') eq '--trial';
my ($F_GETFL, $F_SETFL, $WNOHANG) = (3, 4, 1); # the same on every Linux ABI

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
}

# One stage: its own process group, the call's descriptors as 0/1/2, the checked folder, then exec. Tells the pid on
# the host through $status as soon as it is known (the exec itself is not waited for: one that fails says so on the
# stage's own stderr and exits 127, as a shell would).
sub stage {
  my ($status, $in, $outh, $err, $cwd, $cwd_id, $env, $argv) = @_;
  $SIG{$_} = 'DEFAULT' for qw(CHLD PIPE);
  open(STDIN, '<&', $in) && open(STDOUT, '>&', $outh) && open(STDERR, '>&', $err) or do { syswrite($status, "E dup $!\n"); CORE::exit(127) };
  setpgrp(0, 0);
  # The folder is opened again by its path and accepted only as the very folder the server holds (a link swapped in
  # meanwhile leads elsewhere: refused).
  unless (chdir($cwd) && identity('.') eq $cwd_id) { syswrite($status, "R the working directory $cwd is not the one that was checked\n"); CORE::exit(127) }
  syswrite($status, 'P' . host_pid() . "\n");
  %ENV = %$env;
  exec { $argv->[0] } @$argv;
  syswrite(STDERR, "guarded-shell: cannot run $argv->[0]: $!\n");
  CORE::exit(127);
}

sub start {
  my ($id, $cwd, $cwd_id, $stdin, $stdout, $out_id, $append, $env, $stages) = @_;
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
    pipe(my $sr, my $sw) or return $fail->("pipe $!");
    my $pid = fork() // return $fail->("fork $!");
    if (!$pid) { close $sr; stage($sw, $in[$i], $outs[$i], $errs[$i], $cwd, $cwd_id, $env, $stages->[$i]) }
    close $sw;
    my $said = <$sr> // '';
    close $sr;
    if ($said !~ /\AP(\d+)\n\z/) {
      waitpid($pid, 0);
      return $fail->($said =~ /^R (.*)$/ ? "refuse $1" : $said =~ /^E (.*)$/ ? $1 : 'the stage ended before its exec');
    }
    $stage_of{$pid} = [$id, $i];
    push @here, $pid;
    push @pids, $1;
  }
  close $_ for @mine; # the stages hold them now
  $held{$id} = [grep { defined } $server_in, $server_out, @theirs];
  my $fd = sub { defined $_[0] ? fileno($_[0]) : '-' };
  out("S $id " . join(',', @pids) . ' ' . $fd->($server_in) . ' ' . $fd->($server_out) . ' ' . join(',', map { fileno($_) } @theirs) . "\n");
}

sub order {
  my @f = split /\0/, $_[0], -1;
  my $verb = shift @f;
  if ($verb eq 'A') { delete $held{$_} for @f; return }
  my ($id, $cwd, $cwd_id, $stdin, $stdout, $out_id, $append, $nenv) = splice(@f, 0, 8);
  my %env = map { split /=/, $_, 2 } splice(@f, 0, $nenv);
  my @stages;
  for (1 .. shift @f) { my $n = shift @f; push @stages, [splice(@f, 0, $n)] }
  start($id, $cwd, $cwd_id, $stdin, $stdout, $out_id, $append, \%env, \@stages);
}

out('READY ' . host_pid() . "\n");
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
