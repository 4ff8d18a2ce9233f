/*
 * Guarded Shell's fork server (src/core/exec/launch/forkServer.ts): a small C process per server that forks each
 * stage of a call, so that the server (a large Node process) forks nothing per command, and a fork costs what a
 * process of a few hundred KB costs (a fork of Perl or Node copies, and then faults in, megabytes of their heaps).
 * It dies with the server (a parent-death signal, and the end of its orders), and each stage it forks dies with it.
 * Each stage makes namespaces of its own (PID and mount, and not as root a user namespace mapping the server's uid
 * only), whose PID 1 is a fork of this program holding the capabilities the command lacks, with that namespace's
 * /proc: so a command never sees this process, the server, or another call, and cannot trace or open its own PID 1.
 * No exec but the command's own.
 *
 * Built by esbuild.mjs (scripts/launcher.mjs) into dist/guarded-shell-launcher, statically linked; where it was not
 * built or cannot run, the launcher takes its exec chain instead (linux.ts).
 *
 * argv: the server's pid (this process dies with it). At the end of its orders (the server closed them: the start-up
 * probe's blocking trial) it lets the running stages end, and reports them; a server that died killed it already.
 *
 * Orders on fd 0, frames "<length>\n<payload>", the payload's fields separated by NUL:
 *   S id cwd cwd-dev:ino stdin(null|pipe) stdout(pipe|path) stdout-dev:ino|- append(0|1) contain(1|0) nenv env...
 *     nstages (nargs args...)...  start a call: each stage's argv is the command's own (contain 1: in namespaces of
 *                               its own, made here), or a sandbox's that contains it (0: bubblewrap's, run as is)
 *   A id                        the server opened its ends of the call's pipes: close ours
 * Replies on fd 1, lines:
 *   READY                       the server opens its pipe ends through /proc/<this process>/fd
 *   S id pid,... in out err,... started: each stage's pid (its process group), and this process's descriptors of
 *                               the server's pipe ends ('-' for none)
 *   F id <why>                  nothing of the call runs ("refuse <why>": a check failed)
 *   X id stage <wait status>    a stage ended (its command's own status: exit code or signal)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef PR_CAP_AMBIENT
#define PR_CAP_AMBIENT 47
#endif
#ifndef PR_CAP_AMBIENT_CLEAR_ALL
#define PR_CAP_AMBIENT_CLEAR_ALL 4
#endif

/* What the build made this from (scripts/launcher.mjs: a hash of this source, the compiler and its flags). A binary
 * without it, or with another, is built again: a hand-made build (say, with sanitizers) never stays in dist/. */
#ifndef GUARDED_SHELL_BUILD_ID
#define GUARDED_SHELL_BUILD_ID "none"
#endif
__attribute__((used)) static const char build_id[] = "guarded-shell-launcher-build " GUARDED_SHELL_BUILD_ID;

extern char **environ;

static pid_t self;          /* this process: each stage dies with it */
static char *name_area;     /* argv[0]'s memory: what ps shows, renamed for the init */
static size_t name_room;
static int wake[2];         /* SIGCHLD's self-pipe */

/* ---- small helpers ---- */

static void write_all(int fd, const char *s, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, s, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;
    s += w;
    n -= (size_t)w;
  }
}

/* A line to `fd` (the server, or a command's stderr). */
static void say(int fd, const char *fmt, ...) {
  char line[8192];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  write_all(fd, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}

/* A stage's process or its init cannot go on: why, on the command's stderr, and the status of a command not run. */
static void __attribute__((noreturn)) give_up(const char *what) {
  say(2, "guarded-shell: cannot contain the command: %s: %s\n", what, strerror(errno));
  _exit(127);
}

static void check(long r, const char *what) {
  if (r < 0) give_up(what);
}

static void rename_to(const char *name) {
  prctl(PR_SET_NAME, name, 0, 0, 0);
  if (name_area && name_room > 0) {
    memset(name_area, 0, name_room);
    strncpy(name_area, name, name_room - 1);
  }
}

/* device:inode, as the server's fstat (bigint) gives them. */
static int identity_fd(int fd, char *out, size_t room) {
  struct stat st;
  if (fstat(fd, &st) < 0) return -1;
  snprintf(out, room, "%llu:%llu", (unsigned long long)st.st_dev, (unsigned long long)st.st_ino);
  return 0;
}

static void set_signal(int sig, void (*handler)(int)) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = handler;
  sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
  sigaction(sig, &sa, NULL);
}

static void reset_signals(void) {
  sigset_t none;
  for (int s = 1; s < NSIG; s++) set_signal(s, SIG_DFL);
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
}

static int write_file(const char *path, const char *text) {
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  ssize_t n = write(fd, text, strlen(text));
  int saved = errno;
  close(fd);
  errno = saved;
  return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* Every descriptor from `from` on (this program at start; a stage, all of this fork server's but its own). */
static void close_from(int from) {
#ifdef SYS_close_range
  if (syscall(SYS_close_range, from, ~0U, 0) == 0) return;
#endif
  for (int fd = from; fd < 65536; fd++) close(fd);
}

/* A sanity bound on a pipeline's stages (each costs three processes and four descriptors here). */
#define MAX_STAGES 1024

/* A start order, parsed: pointers into its payload (whose fields are NUL-terminated already). */
struct call {
  char *id, *cwd, *cwd_id, *stdin_kind, *stdout_kind, *out_id;
  int append, contain;
  size_t count;
  char **env;               /* NULL-terminated */
  char ***argv;             /* count of them, each NULL-terminated */
  char **fields;
};

static void free_call(struct call *c) {
  for (size_t i = 0; c->argv && i < c->count; i++) free(c->argv[i]);
  free(c->argv);
  free(c->env);
  free(c->fields);
}

/* NULL-terminated copy of n field pointers. */
static char **vector(char **from, size_t n) {
  char **v = calloc(n + 1, sizeof *v);
  if (!v) abort();
  memcpy(v, from, n * sizeof *v);
  return v;
}

/* "S id cwd cwd-id stdin stdout out-id append contain nenv env... nstages (nargs args...)...": 1, or 0 if malformed. */
static int parse_call(char *payload, size_t len, struct call *c) {
  memset(c, 0, sizeof *c);
  char **f = c->fields = calloc(len + 2, sizeof *f);
  if (!f) abort();
  size_t n = 0;
  for (char *at = payload, *end = payload + len; at <= end; at += strlen(at) + 1) f[n++] = at;
  if (n < 13 || strcmp(f[0], "S") != 0 || strlen(f[1]) > 20) return 0;
  c->id = f[1], c->cwd = f[2], c->cwd_id = f[3], c->stdin_kind = f[4], c->stdout_kind = f[5], c->out_id = f[6];
  c->append = strcmp(f[7], "1") == 0, c->contain = strcmp(f[8], "0") != 0;
  size_t nenv = strtoul(f[9], NULL, 10), at = 10 + nenv, count;
  if (at >= n || (count = strtoul(f[at++], NULL, 10)) == 0 || count > MAX_STAGES) return 0;
  c->env = vector(f + 10, nenv);
  if (!(c->argv = calloc(count, sizeof *c->argv))) abort();
  for (; c->count < count; c->count++) {
    size_t nargs = at < n ? strtoul(f[at++], NULL, 10) : 0;
    if (nargs == 0 || at + nargs > n) return 0;
    c->argv[c->count] = vector(f + at, nargs);
    at += nargs;
  }
  return at == n;
}

/* ---- inside a stage ---- */

/* The stage's program, with signals as a shell leaves them. */
static void __attribute__((noreturn)) run(char **env, char **argv) {
  reset_signals();
  environ = env;
  execvp(argv[0], argv);
  say(2, "guarded-shell: cannot run %s: %s\n", argv[0], strerror(errno));
  _exit(127);
}

/* The command: no capability left, none to gain (an empty bounding set and no_new_privs: even root's exec gets none). */
static void __attribute__((noreturn)) command(char **env, char **argv) {
  for (int cap = 0; prctl(PR_CAPBSET_READ, cap, 0, 0, 0) >= 0; cap++) check(prctl(PR_CAPBSET_DROP, cap, 0, 0, 0), "drop a capability");
  /* (EINVAL: a kernel before 4.3, which has no ambient set to clear.) */
  if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL) give_up("clear the ambient capabilities");
  check(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs");
  struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
  struct __user_cap_data_struct none[2];
  memset(none, 0, sizeof none);
  check(syscall(SYS_capset, &header, none), "drop capabilities");
  run(env, argv);
}

static void on_child(int sig) {
  (void)sig;
}

/*
 * PID 1 of a stage's namespaces: dies with the stage's process (its parent, outside), mounts the namespace's /proc over
 * the host's (host mounts propagate in, none out), says so on `ready`, then reaps whatever is orphaned in here. When
 * it is killed (the command has ended), the kernel ends everything left in its namespace. It keeps every capability
 * the command lacks: the kernel refuses the command every trace of it and open of its /proc/1 entries, and drops a
 * signal the command sends it, as for any init (but SIGCHLD, which only makes it reap).
 */
static void __attribute__((noreturn)) init(int ready) {
  rename_to("guarded-shell-init");
  check(prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0), "parent-death signal");
  check(mount("none", "/", NULL, MS_REC | MS_SLAVE, NULL), "make the mounts private");
  check(mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL), "mount /proc");
  write_all(ready, "m", 1);
  close(ready);
  sigset_t chld, none;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  sigprocmask(SIG_BLOCK, &chld, NULL);
  set_signal(SIGCHLD, on_child);
  sigemptyset(&none);
  for (;;) {
    while (waitpid(-1, NULL, WNOHANG) > 0) {
    }
    sigsuspend(&none);
  }
}

/*
 * The command's exit status as its own parent saw it: an exit code, or the signal it died of (sent again to this
 * process, which is no namespace's init and so dies of it; not dumpable: no core file of ours).
 */
static void __attribute__((noreturn)) end_as(int st) {
  if (WIFEXITED(st)) _exit(WEXITSTATUS(st));
  prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  reset_signals();
  kill(getpid(), WTERMSIG(st));
  _exit(128 + WTERMSIG(st));
}

/* Reads one byte; 0 at the end of the pipe (or an error). */
static int read_byte(int fd) {
  char b;
  ssize_t n;
  while ((n = read(fd, &b, 1)) < 0 && errno == EINTR) {
  }
  return n == 1;
}

/*
 * A stage's process, forked for its call: dies with this fork server, leads its own session (a byte on `led` says so),
 * takes the call's descriptors as 0/1/2 and the checked folder (`dir`) as its working directory, keeps `go` and
 * nothing else of this fork server's. A sandbox's stage (bubblewrap's, which contains itself) then runs as is once the
 * call may start (a byte on `go` once every stage was forked; none: the call failed). Any other makes namespaces of its
 * own (PID, mount, not as root user) with their init (above); once the init mounted the namespace's /proc and the call
 * may start, it forks the command (PID 2 of the namespace) and ends as it did, killing the init (and with it whatever
 * is left in the namespace). It leaves the signals a command's group gets to the command (SIGKILL alone ends this
 * process, and with it the init and the namespace).
 */
static void __attribute__((noreturn)) stage_process(struct call *c, size_t index, int in, int out, int err, int dir, int go, int led) {
  check(prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0), "parent-death signal");
  if (getppid() != self) _exit(127); /* this fork server ended before the signal was set */
  /* Its own session (no terminal the server may have: no TIOCSTI keystrokes into it, no reading it) and process
     group, before the server can learn its pid and signal that group. */
  setsid();
  write_all(led, "s", 1);
  reset_signals();
  set_signal(SIGHUP, SIG_IGN), set_signal(SIGINT, SIG_IGN), set_signal(SIGQUIT, SIG_IGN), set_signal(SIGTERM, SIG_IGN);
  if (dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0 || dup2(go, 3) < 0) _exit(127);
  check(fchdir(dir), "enter the working directory");
  /* Nothing of this fork server's but the call's 0/1/2 and `go` stays open: this process and the init live as long
     as the command (another call's pipe end held here would never see its end). */
  close_from(4);
  if (!c->contain) {
    /* A sandbox's stage (bubblewrap, dying with this process) contains itself: run as is, once the call may start. */
    if (!read_byte(3)) _exit(127);
    close(3);
    run(c->env, c->argv[index]);
  }
  uid_t uid = getuid();
  gid_t gid = getgid();
  check(unshare(CLONE_NEWPID | CLONE_NEWNS | (uid != 0 ? CLONE_NEWUSER : 0)), "unshare");
  if (uid != 0) {
    char uids[64], gids[64];
    /* The server's own ids, and nothing else: the command is its own user in there, with no capability. */
    snprintf(uids, sizeof uids, "%lu %lu 1", (unsigned long)uid, (unsigned long)uid);
    snprintf(gids, sizeof gids, "%lu %lu 1", (unsigned long)gid, (unsigned long)gid);
    check(write_file("/proc/self/setgroups", "deny"), "/proc/self/setgroups");
    check(write_file("/proc/self/uid_map", uids), "/proc/self/uid_map");
    check(write_file("/proc/self/gid_map", gids), "/proc/self/gid_map");
  }
  int up[2];
  check(pipe(up), "pipe");
  pid_t initpid = fork();
  check(initpid, "fork");
  if (initpid == 0) {
    close(up[0]), close(3);
    init(up[1]);
  }
  close(up[1]);
  if (!read_byte(up[0])) {
    say(2, "guarded-shell: cannot contain the command: its namespace's init ended\n");
    _exit(127);
  }
  close(up[0]);
  if (!read_byte(3)) _exit(127); /* the call failed to start: its other stages are gone */
  close(3);
  pid_t pid = fork();
  check(pid, "fork");
  if (pid == 0) command(c->env, c->argv[index]);
  int st;
  while (waitpid(pid, &st, 0) < 0)
    if (errno != EINTR) give_up("wait");
  /* The init's death ends whatever is left in the namespace: waited for, so that nothing of the call runs once its
     end is reported. */
  kill(initpid, SIGKILL);
  while (waitpid(initpid, NULL, 0) < 0 && errno == EINTR) {
  }
  end_as(st);
}

/* ---- the fork server ---- */

/* Which call and stage each stage process is (by its pid), until its end is reported. */
static struct { pid_t pid; char id[24]; int index; } stage_of[1024];
static size_t nstages;
/* The server's ends of a call's pipes, kept open here until the server opened its own ("A"). */
static struct { char id[24]; int fd; } held[4096];
static size_t nheld;

static void hold(const char *id, int fd) {
  if (nheld == sizeof held / sizeof held[0]) return (void)close(fd); /* (the server's open fails and says so) */
  snprintf(held[nheld].id, sizeof held[nheld].id, "%s", id);
  held[nheld++].fd = fd;
}

static void release(const char *id) {
  for (size_t i = 0; i < nheld; i++)
    if (strcmp(held[i].id, id) == 0) close(held[i].fd), held[i--] = held[--nheld];
}

/* Says "X id stage status" for a stage process that ended (nothing for one of a call that failed to start). */
static void report(pid_t pid, int st) {
  for (size_t i = 0; i < nstages; i++) {
    if (stage_of[i].pid != pid) continue;
    say(1, "X %s %d %d\n", stage_of[i].id, stage_of[i].index, st);
    stage_of[i] = stage_of[--nstages];
    return;
  }
}

static void reap(void) {
  int st;
  pid_t pid;
  while ((pid = waitpid(-1, &st, WNOHANG)) > 0) report(pid, st);
}

/* Descriptors a start closes: the stages' ends once they hold them, or everything when it fails. */
struct fds { int *v; size_t n; };
static int keep(struct fds *l, int fd) {
  return fd < 0 ? fd : (l->v[l->n++] = fd);
}
static void close_all(struct fds *l) {
  while (l->n > 0) close(l->v[--l->n]);
}

/* A pipe: its ends kept in `r_list` and `w_list`; 0 once made. */
static int pipe_into(struct fds *r_list, int *r, struct fds *w_list, int *w) {
  int p[2];
  if (pipe2(p, O_CLOEXEC) < 0) return -1;
  *r = keep(r_list, p[0]), *w = keep(w_list, p[1]);
  return 0;
}

/*
 * Opens and checks everything of a call first (the folder and the output file the server checked, opened again by
 * their paths and accepted only as those very objects; every pipe), so that a refused call forks nothing; then forks a
 * stage process per stage, and lets them run their commands once all were forked.
 */
static void start(struct call *c) {
  size_t n = c->count, made = 0;
  pid_t *pids = calloc(n, sizeof *pids);
  int *in = calloc(n, sizeof(int)), *out = calloc(n, sizeof(int)), *err = calloc(n, sizeof(int)), *errs = calloc(n, sizeof(int));
  struct fds theirs = {calloc(3 * n + 4, sizeof(int)), 0}, ours = {calloc(n + 4, sizeof(int)), 0}; /* (every descriptor below) */
  int first = -1, last = -1, dir = -1, go[2] = {-1, -1}, led[2] = {-1, -1};
  char *line = malloc(32 * n + 64), *at, why[4200] = "", got[64];
  if (!pids || !in || !out || !err || !errs || !theirs.v || !ours.v || !line) abort();
  int piped = strcmp(c->stdin_kind, "pipe") == 0, to_pipe = strcmp(c->stdout_kind, "pipe") == 0;
  if (nstages + n > sizeof stage_of / sizeof stage_of[0]) snprintf(why, sizeof why, "too many stages running");
  else if ((dir = keep(&theirs, open(c->cwd, O_PATH | O_DIRECTORY | O_CLOEXEC))) < 0 || identity_fd(dir, got, sizeof got) < 0 || strcmp(got, c->cwd_id) != 0)
    snprintf(why, sizeof why, "refuse the working directory %s is not the one that was checked", c->cwd);
  else if (!to_pipe) {
    out[n - 1] = keep(&theirs, open(c->stdout_kind, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | (c->append ? O_APPEND : 0)));
    if (out[n - 1] < 0) snprintf(why, sizeof why, "refuse the output file %s cannot be opened: %s", c->stdout_kind, strerror(errno));
    else if (identity_fd(out[n - 1], got, sizeof got) < 0 || strcmp(got, c->out_id) != 0) snprintf(why, sizeof why, "refuse the output file %s is not the one that was checked", c->stdout_kind);
    else fcntl(out[n - 1], F_SETFL, fcntl(out[n - 1], F_GETFL) & ~O_NONBLOCK);
  }
  int ok = !*why && pipe_into(&theirs, &go[0], &ours, &go[1]) == 0 && pipe_into(&ours, &led[0], &theirs, &led[1]) == 0;
  ok = ok && (piped ? pipe_into(&theirs, &in[0], &ours, &first) : (in[0] = keep(&theirs, open("/dev/null", O_RDONLY | O_CLOEXEC)))) >= 0;
  for (size_t i = 0; ok && i < n; i++) {
    if (i + 1 < n) ok = pipe_into(&theirs, &in[i + 1], &theirs, &out[i]) == 0;
    else if (to_pipe) ok = pipe_into(&ours, &last, &theirs, &out[i]) == 0;
    ok = ok && pipe_into(&ours, &errs[i], &theirs, &err[i]) == 0;
  }
  if (!*why && !ok) snprintf(why, sizeof why, "pipe %s", strerror(errno));
  for (; !*why && made < n; made++) {
    if ((pids[made] = fork()) < 0) snprintf(why, sizeof why, "fork %s", strerror(errno));
    else if (pids[made] == 0) stage_process(c, made, in[made], out[made], err[made], dir, go[0], led[1]);
  }
  close_all(&theirs); /* the stages hold them now */
  /* Every stage leads its session (a byte each), or ended: only then is its pid a group the server can signal. */
  for (size_t said = 0; !*why && said < n && read_byte(led[0]); said++) {
  }
  if (*why) {
    /* Nothing of the call runs: the stage processes forked (waiting for `go`) end, reaped as no stage of a call. */
    for (size_t i = 0; i < made; i++) kill(pids[i], SIGKILL);
    close_all(&ours);
    say(1, "F %s %s\n", c->id, why);
  } else {
    for (size_t i = 0; i < n; i++) write_all(go[1], "g", 1);
    /* "S id pid,... in out err,...": the server's ends by their descriptors here, held until it says "A". */
    at = line + sprintf(line, "S %s ", c->id);
    for (size_t i = 0; i < n; i++) {
      at += sprintf(at, "%s%d", i ? "," : "", pids[i]);
      stage_of[nstages].pid = pids[i], stage_of[nstages].index = (int)i;
      snprintf(stage_of[nstages++].id, sizeof stage_of[0].id, "%s", c->id);
    }
    at += first >= 0 ? sprintf(at, " %d", first) : sprintf(at, " -");
    at += last >= 0 ? sprintf(at, " %d ", last) : sprintf(at, " - ");
    for (size_t i = 0; i < n; i++) at += sprintf(at, "%s%d", i ? "," : "", errs[i]);
    close(go[1]), close(led[0]);
    for (size_t i = 0; i < ours.n; i++)
      if (ours.v[i] != go[1] && ours.v[i] != led[0]) hold(c->id, ours.v[i]);
    at += sprintf(at, "\n");
    write_all(1, line, (size_t)(at - line)); /* (not say(): a long pipeline's line is longer than its buffer) */
  }
  free(pids), free(in), free(out), free(err), free(errs), free(theirs.v), free(ours.v), free(line);
}

static void order(char *payload, size_t len) {
  char *id = strlen(payload) < len ? payload + strlen(payload) + 1 : payload + len;
  if (strcmp(payload, "A") == 0) return release(id);
  struct call c;
  if (parse_call(payload, len, &c)) start(&c);
  else say(1, "F %.20s a malformed order\n", id);
  free_call(&c);
}

static void on_sigchld(int sig) {
  (void)sig;
  int saved = errno;
  if (write(wake[1], "c", 1) < 0) {
  }
  errno = saved;
}

int main(int argc, char **argv) {
  name_area = argv[0];
  name_room = strlen(argv[0]) + 1;
  /* Nothing inherited but 0/1/2 (the server gives this program as descriptor 3, which it was started from). */
  close_from(3);
  long server = argc > 1 ? strtol(argv[1], NULL, 10) : 0;
  if (server <= 1) {
    say(2, "usage: guarded-shell-launcher <server pid>\n");
    return 2;
  }
  if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 || getppid() != server) return 1; /* the server is gone */
  self = getpid();
  rename_to("guarded-shell-launcher");
  if (pipe2(wake, O_CLOEXEC | O_NONBLOCK) < 0) return 1;
  set_signal(SIGCHLD, on_sigchld);
  set_signal(SIGPIPE, SIG_IGN);
  say(1, "READY\n");
  char *buf = NULL;
  size_t have = 0, room = 0;
  for (;;) {
    struct pollfd fds[2] = {{0, POLLIN, 0}, {wake[0], POLLIN, 0}};
    if (poll(fds, 2, -1) <= 0) continue;
    if (fds[1].revents) {
      char x[512];
      while (read(wake[0], x, sizeof x) > 0) {
      }
      reap();
    }
    if (!fds[0].revents) continue;
    if (room - have < 65536 && !(buf = realloc(buf, room = room ? room * 2 : 131072))) abort();
    ssize_t got = read(0, buf + have, room - have);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      /* The server closed the orders but lives (a trial): the running stages end and are reported first. */
      int st;
      pid_t pid;
      while (nstages > 0 && ((pid = waitpid(-1, &st, 0)) > 0 || errno == EINTR))
        if (pid > 0) report(pid, st);
      return 0;
    }
    have += (size_t)got;
    char *nl;
    while ((nl = memchr(buf, '\n', have)) != NULL) {
      size_t head = (size_t)(nl - buf) + 1, len = strtoul(buf, NULL, 10);
      if (have < head + len) break;
      char *payload = malloc(len + 1);
      if (!payload) abort();
      memcpy(payload, buf + head, len);
      payload[len] = 0;
      memmove(buf, buf + head + len, have - head - len);
      have -= head + len;
      order(payload, len);
      free(payload);
    }
  }
}
