# A spare of the launcher's fork server (forkServer.pl, forkServer.ts): a stage started ahead of its call, already
# PID 1 of its own namespaces with its own /proc and no capability, waiting for its program. The server writes the
# order on fd 0 and closes it: cwd cwd-dev:ino stdout(pipe|path) stdout-dev:ino|- append nenv env... argv...
# (NUL-separated). What the server checked and holds is opened again by its path and accepted only as that very
# object; a refusal goes to the fork server on fd 3 ("R <why>") and ends the spare with 125. Plain Perl only.
use strict;

my ($O_WRONLY, $O_APPEND, $O_NOFOLLOW, $O_NONBLOCK) = map { $_ + 0 } split /,/, ($ARGV[0] // '');
my ($F_SETFD, $FD_CLOEXEC, $F_GETFL, $F_SETFL) = (2, 1, 3, 4); # the same on every Linux ABI
open(my $word, '>&=', 3) or exit 125;
fcntl($word, $F_SETFD, $FD_CLOEXEC); # the program does not inherit it
sub identity { my @st = stat($_[0]); @st ? "$st[0]:$st[1]" : '' }
sub refuse { syswrite($word, "R $_[0]\n"); exit 125 }

my $order = do { local $/; <STDIN> };
exit 0 unless defined $order && length $order; # dropped unused
my @f = split /\0/, $order, -1;
my ($cwd, $cwd_id, $stdout, $out_id, $append, $nenv) = splice(@f, 0, 6);
my %env = map { split /=/, $_, 2 } splice(@f, 0, $nenv);
chdir($cwd) && identity('.') eq $cwd_id or refuse("the working directory $cwd is not the one that was checked");
if ($stdout ne 'pipe') {
  sysopen(my $f, $stdout, $O_WRONLY | $O_NOFOLLOW | $O_NONBLOCK | ($append ? $O_APPEND : 0)) or refuse("the output file $stdout cannot be opened: $!");
  identity($f) eq $out_id or refuse("the output file $stdout is not the one that was checked");
  fcntl($f, $F_SETFL, (fcntl($f, $F_GETFL, 0) + 0) & ~$O_NONBLOCK);
  open(STDOUT, '>&', $f) or refuse("dup $!");
}
open(STDIN, '<', '/dev/null') or refuse("/dev/null: $!");
%ENV = %env;
exec { $f[0] } @f;
syswrite(STDERR, "guarded-shell: cannot run $f[0]: $!\n");
exit 127;
