# Guarded Shell's proxy bridge (src/core/network/sandboxWiring.ts), run INSIDE the sandbox in front of the
# command:   perl -e <this> SOCKET PORT -- PROGRAM ARG...
#
# The sandbox has no network but a loopback of its own. This listens on 127.0.0.1:PORT there BEFORE the command
# starts (so the command's first connection is never refused), leaves a detached relay that carries each
# connection to SOCKET (the proxy outside the sandbox, bound in as a file), and then execs the command in its own
# place: the command keeps the pid, the exit status and the signals it would have had.
#
# The relay is a grandchild, re-parented to the sandbox's init: no program that waits for "all its children"
# waits for it (and the command's own wait() can never return the relay's exit in place of its child's: the
# middle process is reaped here, before the exec). It needs no stop of its own: bubblewrap runs the command in
# a PID namespace of its own, which ends when the command does, and the kernel kills the relay then, before
# the sandbox's exit is reported. That is also why the descriptors it inherited (the command's stdio, the
# executor's lifeline) are not closed one by one here: they close with it, and closing them cost more than the
# rest of the start.
#
# No module: `use Socket` alone would cost more than the rest of this script. The numbers are Linux's (AF_UNIX 1,
# AF_INET 2, SOCK_STREAM 1); an ABI with others (MIPS: SOCK_STREAM 2) is asked through Socket.pm instead.
use strict;

my ($path, $port, $sep, @cmd) = @ARGV;
my ($AF_UNIX, $AF_INET, $SOCK_STREAM) = (1, 2, 1);

sub fail { syswrite(STDERR, "guarded-shell proxy bridge: $_[0]\n"); exit 126 }

fail('usage: SOCKET PORT -- PROGRAM ARG...') unless defined $sep && $sep eq '--' && @cmd && $port =~ /^\d+$/;
my $listener;
unless (socket($listener, $AF_INET, $SOCK_STREAM, 0)) {
  require Socket;
  ($AF_UNIX, $AF_INET, $SOCK_STREAM) = (Socket::AF_UNIX(), Socket::AF_INET(), Socket::SOCK_STREAM());
  socket($listener, $AF_INET, $SOCK_STREAM, 0) or fail("socket: $!");
}
bind($listener, pack('S n C4 x8', $AF_INET, $port, 127, 0, 0, 1)) or fail("cannot listen on 127.0.0.1:$port: $!");
listen($listener, 128) or fail("listen: $!");

my $middle = fork;
fail("fork: $!") unless defined $middle;
if ($middle == 0) {
  my $relay = fork;
  exit 0 if !defined $relay || $relay;
  serve();
}
waitpid($middle, 0);
close $listener; # (close-on-exec anyway: perl marks every descriptor it opens above 2)
{ exec { $cmd[0] } @cmd; }
my $errno = $! + 0;
syswrite(STDERR, "guarded-shell proxy bridge: cannot run $cmd[0]: $!\n");
exit($errno == 2 ? 127 : 126);

sub serve {
  $SIG{CHLD} = 'IGNORE'; # each connection's relay is reaped by the kernel
  while (1) {
    my $client;
    unless (accept($client, $listener)) {
      select(undef, undef, undef, 0.05); # EMFILE and the like: do not spin
      next;
    }
    my $pid = fork;
    if (defined $pid && $pid == 0) {
      close $listener;
      relay($client);
      exit 0;
    }
    close $client;
  }
}

# Copies both ways until both sides are done; an end of one direction is passed on as a half close.
sub relay {
  my ($client) = @_;
  my $upstream;
  socket($upstream, $AF_UNIX, $SOCK_STREAM, 0) or exit 1;
  connect($upstream, pack('S a108', $AF_UNIX, $path)) or exit 1;
  my @ways = ([$client, $upstream], [$upstream, $client]);
  my %open = (0 => 1, 1 => 1);
  while (%open) {
    my $in = '';
    vec($in, fileno($ways[$_][0]), 1) = 1 for keys %open;
    my $ready = select(my $out = $in, undef, undef, undef);
    next if $ready < 0; # interrupted
    for my $i (keys %open) {
      my ($from, $to) = @{ $ways[$i] };
      next unless vec($out, fileno($from), 1);
      my $got = sysread($from, my $buf, 65536);
      unless ($got) {
        shutdown($to, 1);
        delete $open{$i};
        next;
      }
      for (my $done = 0; $done < $got;) {
        my $wrote = syswrite($to, $buf, $got - $done, $done);
        exit 0 unless $wrote;
        $done += $wrote;
      }
    }
  }
}
