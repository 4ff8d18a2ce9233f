# Guarded Shell's proxy bridge (src/core/network/sandboxWiring.ts), run INSIDE the sandbox in front of the
# command:   perl -e <this> SOCKET PORT [SOCKET PORT]... [--publish SOCKET] -- PROGRAM ARG...
#
# The sandbox has no network but a loopback of its own. This listens on 127.0.0.1:PORT there for each pair BEFORE
# the command starts (so the command's first connection is never refused), leaves a detached relay that carries
# each connection to the pair's SOCKET (a Unix socket of the server, outside the sandbox, bound in as a file), and
# then execs the command in its own place: the command keeps the pid, the exit status and the signals it would
# have had. The first pair is the egress proxy; the others are ports of the folder's background commands, each
# published by ITS sandbox's bridge (a port that cannot be bound here, e.g. one the command itself uses, is left out).
#
# --publish (a background command's bridge): the relay also opens a control connection to SOCKET, over which the
# server asks which ports listen on this sandbox's loopback ("PORTS" -> "PORTS 8000 5173", read from
# /proc/net/tcp*) and asks for a connection to one ("OPEN TOKEN PORT": the relay connects to SOCKET again, says
# "DATA TOKEN", connects to the port here and carries the bytes both ways). Every connection goes from here to the
# server: nothing outside can connect into the sandbox, and the sandbox learns no path of the host.
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
# AF_INET 2, AF_INET6 10, SOCK_STREAM 1); an ABI with others (MIPS: SOCK_STREAM 2) is asked through Socket.pm instead.
use strict;

my (@pairs, $publish);
while (@ARGV && $ARGV[0] ne '--') {
  my $a = shift @ARGV;
  if ($a eq '--publish') { $publish = shift @ARGV; next }
  push @pairs, [$a, shift @ARGV];
}
my ($sep, @cmd) = @ARGV;
my ($AF_UNIX, $AF_INET, $AF_INET6, $SOCK_STREAM) = (1, 2, 10, 1);

sub fail { syswrite(STDERR, "guarded-shell proxy bridge: $_[0]\n"); exit 126 }

fail('usage: SOCKET PORT [SOCKET PORT]... [--publish SOCKET] -- PROGRAM ARG...')
  unless defined $sep && $sep eq '--' && @cmd && @pairs && !grep { !defined $_->[1] || $_->[1] !~ /^\d+$/ } @pairs;

# The first pair (the proxy) must listen; another port that is taken is left out, the command may want it.
my @listeners;
for my $i (0 .. $#pairs) {
  my ($path, $port) = @{ $pairs[$i] };
  my $l;
  unless (socket($l, $AF_INET, $SOCK_STREAM, 0)) {
    require Socket;
    ($AF_UNIX, $AF_INET, $AF_INET6, $SOCK_STREAM) = (Socket::AF_UNIX(), Socket::AF_INET(), Socket::AF_INET6(), Socket::SOCK_STREAM());
    socket($l, $AF_INET, $SOCK_STREAM, 0) or fail("socket: $!");
  }
  unless (bind($l, pack('S n C4 x8', $AF_INET, $port, 127, 0, 0, 1)) && listen($l, 128)) {
    fail("cannot listen on 127.0.0.1:$port: $!") if $i == 0;
    close $l;
    next;
  }
  push @listeners, [$l, $path];
}

my $middle = fork;
fail("fork: $!") unless defined $middle;
if ($middle == 0) {
  my $relay = fork;
  exit 0 if !defined $relay || $relay;
  serve();
}
waitpid($middle, 0);
close $_->[0] for @listeners; # (close-on-exec anyway: perl marks every descriptor it opens above 2)
{ exec { $cmd[0] } @cmd; }
my $errno = $! + 0;
syswrite(STDERR, "guarded-shell proxy bridge: cannot run $cmd[0]: $!\n");
exit($errno == 2 ? 127 : 126);

sub unix_connect {
  my ($path) = @_;
  my $s;
  socket($s, $AF_UNIX, $SOCK_STREAM, 0) or return;
  connect($s, pack('S a108', $AF_UNIX, $path)) or return;
  return $s;
}

sub serve {
  $SIG{CHLD} = 'IGNORE'; # each connection's relay is reaped by the kernel
  my $ctl = defined $publish ? unix_connect($publish) : undef;
  if ($ctl) { syswrite($ctl, "CTL\n") or undef $ctl }
  my $pending = '';
  while (1) {
    my $in = '';
    vec($in, fileno($_->[0]), 1) = 1 for @listeners;
    vec($in, fileno($ctl), 1) = 1 if $ctl;
    my $ready = select(my $out = $in, undef, undef, undef);
    next if $ready < 0; # interrupted
    for my $l (@listeners) {
      next unless vec($out, fileno($l->[0]), 1);
      my $client;
      unless (accept($client, $l->[0])) {
        select(undef, undef, undef, 0.05); # EMFILE and the like: do not spin
        next;
      }
      my $pid = fork;
      if (defined $pid && $pid == 0) {
        close $_->[0] for @listeners;
        close $ctl if $ctl;
        my $upstream = unix_connect($l->[1]) or exit 1;
        relay($client, $upstream);
        exit 0;
      }
      close $client;
    }
    if ($ctl && vec($out, fileno($ctl), 1)) {
      my $got = sysread($ctl, my $buf, 4096);
      unless ($got) { close $ctl; undef $ctl; next } # the server went away: publish no more
      $pending .= $buf;
      while ($pending =~ s/^([^\n]*)\n//) { control($1, $ctl) }
      if (length($pending) > 4096) { close $ctl; undef $ctl }
    }
  }
}

# One request of the server on the control connection.
sub control {
  my ($line, $ctl) = @_;
  if ($line eq 'PORTS') {
    syswrite($ctl, 'PORTS' . join('', map { " $_" } listening()) . "\n");
  } elsif ($line =~ /^OPEN ([0-9a-f]{1,64}) (\d{1,5})$/) {
    my ($token, $port) = ($1, $2);
    my $pid = fork;
    return unless defined $pid && $pid == 0;
    close $_->[0] for @listeners;
    close $ctl;
    my $up = unix_connect($publish) or exit 1;
    syswrite($up, "DATA $token\n") or exit 1;
    my $local = loopback_connect($port) or exit 0; # nothing listens: the server sees the close
    relay($local, $up);
    exit 0;
  }
}

# The ports something listens on in this sandbox (its network namespace has a loopback only).
sub listening {
  my %seen;
  for my $file ('/proc/net/tcp', '/proc/net/tcp6') {
    open(my $fh, '<', $file) or next;
    while (my $l = <$fh>) {
      my @f = split ' ', $l;
      next unless @f > 3 && $f[3] eq '0A' && $f[1] =~ /:([0-9A-F]{4})$/; # LISTEN
      $seen{hex $1} = 1;
    }
  }
  return sort { $a <=> $b } keys %seen;
}

sub loopback_connect {
  my ($port) = @_;
  my $s;
  if (socket($s, $AF_INET, $SOCK_STREAM, 0) && connect($s, pack('S n C4 x8', $AF_INET, $port, 127, 0, 0, 1))) { return $s }
  # Listening on ::1 only: sockaddr_in6 is family, port, flow info, address, scope.
  if (socket($s, $AF_INET6, $SOCK_STREAM, 0) && connect($s, pack('S n N a16 N', $AF_INET6, $port, 0, "\0" x 15 . "\1", 0))) { return $s }
  return;
}

# Copies both ways until both sides are done; an end of one direction is passed on as a half close.
sub relay {
  my ($client, $upstream) = @_;
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
