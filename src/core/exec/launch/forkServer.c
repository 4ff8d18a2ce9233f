/*
 * Guarded Shell's fork server (src/core/exec/launch/forkServer.ts): a small C process per server that forks each
 * stage of a call, so that the server (a large Node process) forks nothing per command, and a fork costs what a
 * process of a few hundred KB costs (a fork of Perl or Node copies, and then faults in, megabytes of their heaps).
 * It is PID 1 of a PID namespace of its own (unshare made it; not as root, inside a user namespace where the server's
 * uid is root) and dies with the server. Each stage it forks makes namespaces of the stage's own (PID and mount, and
 * not as root a user namespace mapping the server's uid only), whose PID 1 is a fork of this program holding the
 * capabilities the command lacks, with that namespace's /proc: so a command never sees this process, the server, or
 * another call, and cannot trace or open its own PID 1. No exec but the command's own.
 *
 * Built by esbuild.mjs (scripts/launcher.mjs) into dist/guarded-shell-launcher, statically linked; where it was not
 * built or cannot run, the launcher takes its exec chain instead (linux.ts).
 *
 * argv: "root" or "<uid>:<gid>" (the server's on the host: each stage's user namespace maps those only, to this
 * root), then "--trial" for the start-up probe's blocking run (at the end of the orders, wait for the stages).
 *
 * Orders on fd 0, frames "<length>\n<payload>", the payload's fields separated by NUL:
 *   S id cwd cwd-dev:ino stdin(null|pipe) stdout(pipe|path) stdout-dev:ino|- append(0|1) nenv env... nstages
 *     (nargs args...)...        start a call; each stage's argv is the command's own
 *   A id                        the server opened its ends of the call's pipes: close ours
 *   M id n                      make n pipes for a call whose stages the server spawns itself (Node's own "pipes"
 *                               are socket pairs: a reader that ends early would reset the writer, not SIGPIPE it)
 * A stage's process gets the start order as it came, behind "<stage index>\0<its stdin: pipe|null|inherit>\0".
 * Replies on fd 1, lines:
 *   READY <pid on the host>     the server opens its pipe ends through /proc/<that pid>/fd
 *   S id pid,... in out err,... started: each stage's pid on the host (its process group), and this process's
 *                               descriptors of the server's pipe ends ('-' for none)
 *   F id <why>                  nothing of the call runs ("refuse <why>": a check failed)
 *   M id r,w r,w...             the pipes made, by this process's descriptors (kept until "A")
 *   X id stage <wait status>    a stage ended (its command's own status: exit code or signal)
 */
#define _GNU_SOURCE
#include <dirent.h>
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

extern char **environ;

static int user_ns;         /* not root: each stage gets a user namespace mapping uid:gid only */
static unsigned long uid, gid;
static int trial;
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

/* A line to `fd` (the server, or a stage's reply pipe). */
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

static int host_pid(void) {
  char buf[32];
  ssize_t n = readlink("/proc/self", buf, sizeof buf - 1);
  if (n <= 0) return 0;
  buf[n] = 0;
  return atoi(buf);
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

/* One frame ("<length>\n<payload>") from a pipe, NUL-terminated, or NULL at its end. */
static char *read_frame(int fd, size_t *len) {
  char head[24];
  size_t h = 0, got = 0;
  for (;; h++) {
    ssize_t n;
    while ((n = read(fd, head + h, 1)) < 0 && errno == EINTR) {
    }
    if (n <= 0 || h == sizeof head - 1) return NULL;
    if (head[h] == '\n') break;
  }
  head[h] = 0;
  *len = strtoul(head, NULL, 10);
  char *p = malloc(*len + 1);
  while (p && got < *len) {
    ssize_t n = read(fd, p + got, *len - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return free(p), NULL;
    got += (size_t)n;
  }
  if (p) p[*len] = 0;
  return p;
}

/* One line from a stage's reply pipe (without its newline), or "" at its end. */
static void read_line(int fd, char *line, size_t room) {
  size_t n = 0;
  while (n < room - 1) {
    ssize_t r = read(fd, line + n, 1);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0 || line[n] == '\n') break;
    n++;
  }
  line[n] = 0;
}

/* A sanity bound on a pipeline's stages (each costs three processes and four descriptors here). */
#define MAX_STAGES 1024

/* A start order, parsed: pointers into its payload (whose fields are NUL-terminated already). */
struct call {
  char *id, *cwd, *cwd_id, *stdin_kind, *stdout_kind, *out_id;
  int append;
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

/* "S id cwd cwd-id stdin stdout out-id append nenv env... nstages (nargs args...)...": 1, or 0 if malformed. */
static int parse_call(char *payload, size_t len, struct call *c) {
  memset(c, 0, sizeof *c);
  char **f = c->fields = calloc(len + 2, sizeof *f);
  if (!f) abort();
  size_t n = 0;
  for (char *at = payload, *end = payload + len; at <= end; at += strlen(at) + 1) f[n++] = at;
  if (n < 12 || strcmp(f[0], "S") != 0 || strlen(f[1]) > 20) return 0;
  c->id = f[1], c->cwd = f[2], c->cwd_id = f[3], c->stdin_kind = f[4], c->stdout_kind = f[5], c->out_id = f[6];
  c->append = strcmp(f[7], "1") == 0;
  size_t nenv = strtoul(f[8], NULL, 10), at = 9 + nenv, count;
  if (at >= n || (count = strtoul(f[at++], NULL, 10)) == 0 || count > MAX_STAGES) return 0;
  c->env = vector(f + 9, nenv);
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

/*
 * The command: no capability left, none to gain (an empty bounding set and no_new_privs: even root's exec gets
 * none), signals as a shell leaves them, then exec.
 */
static void __attribute__((noreturn)) command(const char *stdin_kind, char **env, char **argv) {
  reset_signals();
  if (strcmp(stdin_kind, "null") == 0) {
    int fd = open("/dev/null", O_RDONLY);
    if (fd < 0 || dup2(fd, 0) < 0) give_up("/dev/null");
    if (fd != 0) close(fd);
  }
  for (int cap = 0; prctl(PR_CAPBSET_READ, cap, 0, 0, 0) >= 0; cap++) check(prctl(PR_CAPBSET_DROP, cap, 0, 0, 0), "drop a capability");
  /* (EINVAL: a kernel before 4.3, which has no ambient set to clear.) */
  if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL) give_up("clear the ambient capabilities");
  check(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs");
  struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
  struct __user_cap_data_struct none[2];
  memset(none, 0, sizeof none);
  check(syscall(SYS_capset, &header, none), "drop capabilities");
  environ = env;
  execvp(argv[0], argv);
  say(2, "guarded-shell: cannot run %s: %s\n", argv[0], strerror(errno));
  _exit(127);
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

/* Every descriptor above 2 but `keep_a` and `keep_b`. */
static void close_others(int keep_a, int keep_b) {
  DIR *d = opendir("/proc/self/fd");
  if (!d) give_up("/proc/self/fd");
  int fds[1024];
  size_t n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL && n < sizeof fds / sizeof fds[0]) {
    int fd = atoi(e->d_name);
    if (fd > 2 && fd != keep_a && fd != keep_b && fd != dirfd(d)) fds[n++] = fd;
  }
  closedir(d);
  int full = n == sizeof fds / sizeof fds[0];
  while (n > 0) close(fds[--n]);
  if (full) close_others(keep_a, keep_b); /* more than one pass holds */
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

/*
 * A stage's process, forked ahead of its call (a spare, with pipes of its own for the command's 0/1/2) or for it (with
 * the call's): its own process group, the descriptors as 0/1/2 and nothing else of this fork server's, then namespaces
 * of its own (PID, mount, not as root user) with their init (above). Says "H<pid on the host>" on `replies` once
 * ready, then waits for its one order on `orders` ("<stage index>\0<stdin: pipe|null|inherit>\0" and the call's start
 * order), checks the folder ("R why", or "P"), forks the command (PID 2 of the namespace) and ends as it did, killing
 * the init (and with it whatever is left in the namespace). It leaves the signals a command's group gets to the
 * command (SIGKILL alone ends this process, and with it the init and the namespace).
 */
static void __attribute__((noreturn)) stage_process(int orders, int replies, int in, int out, int err) {
  reset_signals();
  set_signal(SIGHUP, SIG_IGN), set_signal(SIGINT, SIG_IGN), set_signal(SIGQUIT, SIG_IGN), set_signal(SIGTERM, SIG_IGN);
  if (dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0) {
    say(replies, "E dup %s\n", strerror(errno));
    _exit(127);
  }
  setpgid(0, 0);
  int host = host_pid();
  /* Nothing of this fork server's but the call's 0/1/2 and this process's two pipes stays open: this process and the
     init live as long as the command (another call's pipe end held here would never see its end). */
  close_others(orders, replies);
  check(unshare(CLONE_NEWPID | CLONE_NEWNS | (user_ns ? CLONE_NEWUSER : 0)), "unshare");
  if (user_ns) {
    char uids[64], gids[64];
    snprintf(uids, sizeof uids, "%lu 0 1", uid);
    snprintf(gids, sizeof gids, "%lu 0 1", gid);
    check(write_file("/proc/self/setgroups", "deny"), "/proc/self/setgroups");
    check(write_file("/proc/self/uid_map", uids), "/proc/self/uid_map");
    check(write_file("/proc/self/gid_map", gids), "/proc/self/gid_map");
  }
  int up[2];
  check(pipe(up), "pipe");
  pid_t initpid = fork();
  check(initpid, "fork");
  if (initpid == 0) {
    close(up[0]), close(orders), close(replies);
    init(up[1]);
  }
  close(up[1]);
  char mounted;
  ssize_t got;
  while ((got = read(up[0], &mounted, 1)) < 0 && errno == EINTR) {
  }
  if (got != 1) {
    say(2, "guarded-shell: cannot contain the command: its namespace's init ended\n");
    _exit(127);
  }
  close(up[0]);
  say(replies, "H%d\n", host);
  size_t len;
  char *order = read_frame(orders, &len);
  if (!order) _exit(0); /* no call came (the fork server ended, or dropped this spare) */
  size_t index = strtoul(order, NULL, 10), skip = strlen(order) + 1;
  const char *stdin_kind = order + skip;
  skip += strlen(stdin_kind) + 1;
  struct call c;
  if (skip > len || !parse_call(order + skip, len - skip, &c) || index >= c.count) errno = EINVAL, give_up("its order");
  char here[64];
  int dir = -1;
  if (chdir(c.cwd) < 0 || (dir = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 || identity_fd(dir, here, sizeof here) < 0 || strcmp(here, c.cwd_id) != 0) {
    say(replies, "R the working directory %s is not the one that was checked\n", c.cwd);
    _exit(127);
  }
  say(replies, "P\n");
  close(dir), close(orders), close(replies);
  pid_t pid = fork();
  check(pid, "fork");
  if (pid == 0) command(stdin_kind, c.env, c.argv[index]);
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

struct proc {
  pid_t pid;          /* in this namespace (its process group) */
  int host;           /* on the host, once ready */
  int orders, replies; /* its order pipe's write end, its reply pipe's read end */
  int in, out, err;   /* a spare's: the server's ends of its own 0/1/2 */
};

static void close_pair(int p[2]) {
  close(p[0]), close(p[1]);
}

/* Forks a stage's process with these descriptors for its command and waits until it is ready; 0 once it is. */
static int new_stage_process(int in, int out, int err, struct proc *p) {
  int o[2], r[2];
  memset(p, 0, sizeof *p);
  p->in = p->out = p->err = -1;
  if (pipe2(o, O_CLOEXEC) < 0) return -1;
  if (pipe2(r, O_CLOEXEC) < 0) return close_pair(o), -1;
  if ((p->pid = fork()) < 0) return close_pair(o), close_pair(r), -1;
  if (p->pid == 0) stage_process(o[0], r[1], in, out, err);
  close(o[0]), close(r[1]);
  p->orders = o[1], p->replies = r[0];
  return 0;
}

/* Its "H<pid on the host>": 1 once it is ready. */
static int ready(struct proc *p) {
  char line[64];
  if (!p->host) read_line(p->replies, line, sizeof line), p->host = line[0] == 'H' ? atoi(line + 1) : -1;
  return p->host > 0;
}

/* Ends a stage process that never ran its command (and its descriptors here). */
static void discard(struct proc *p) {
  kill(-p->pid, SIGKILL);
  kill(p->pid, SIGKILL); /* (one that failed before it made its process group) */
  while (waitpid(p->pid, NULL, 0) < 0 && errno == EINTR) {
  }
  int fds[] = {p->orders, p->replies, p->in, p->out, p->err};
  for (size_t i = 0; i < 5; i++)
    if (fds[i] >= 0) close(fds[i]);
}

/*
 * Gives a ready stage process its order (below); NULL once it runs its command, else why not (into `why`; the stage
 * process is then ended).
 */
static const char *give(struct proc *p, size_t index, const char *stdin_kind, const char *payload, size_t len, char *why, size_t room) {
  char head[64];
  int h = snprintf(head, sizeof head, "%zu", index);
  h += 1 + snprintf(head + h + 1, sizeof head - (size_t)h - 1, "%s", stdin_kind) + 1;
  size_t total = (size_t)h + len;
  char *frame = malloc(total + 24);
  if (!frame) abort();
  size_t at = (size_t)sprintf(frame, "%zu\n", total);
  memcpy(frame + at, head, (size_t)h);
  memcpy(frame + at + (size_t)h, payload, len);
  write_all(p->orders, frame, at + total);
  free(frame);
  char line[2048];
  read_line(p->replies, line, sizeof line);
  close(p->orders), close(p->replies);
  p->orders = p->replies = -1;
  if (strcmp(line, "P") == 0) return NULL;
  discard(p);
  if (line[0] == 'R' && line[1] == ' ') snprintf(why, room, "refuse %s", line + 2);
  else snprintf(why, room, "%s", line[0] == 'E' && line[1] == ' ' ? line + 2 : "the stage ended before its exec");
  return why;
}

/* Which call and stage each stage process is (by its pid here), until its end is reported. */
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

/* Says "X id stage status" for a stage process that ended; 0 if it was none (a spare, a discarded one). */
static int report(pid_t pid, int st) {
  for (size_t i = 0; i < nstages; i++) {
    if (stage_of[i].pid != pid) continue;
    say(1, "X %s %d %d\n", stage_of[i].id, stage_of[i].index, st);
    stage_of[i] = stage_of[--nstages];
    return 1;
  }
  return 0;
}

/*
 * One spare kept ready (a single-stage call with its output to a pipe, the usual one, takes it): making a stage's
 * namespaces and their init costs two forks, done here between calls instead of in a call's start.
 */
static struct proc spare;
static int have_spare;

static void make_spare(void) {
  int p[3][2], made = 0;
  if (have_spare || trial) return;
  while (made < 3 && pipe2(p[made], O_CLOEXEC) == 0) made++;
  if (made == 3 && new_stage_process(p[0][0], p[1][1], p[2][1], &spare) == 0) {
    close(p[0][0]), close(p[1][1]), close(p[2][1]);
    spare.in = p[0][1], spare.out = p[1][0], spare.err = p[2][0];
    have_spare = 1;
    return;
  }
  while (made > 0) close_pair(p[--made]);
}

static void reap(void) {
  int st;
  pid_t pid;
  while ((pid = waitpid(-1, &st, WNOHANG)) > 0) report(pid, st);
  /* The next spare, made once a call has ended (made while that call's command runs, it would take the CPU from it;
     another call still running, a background one, must not keep every later call from having one). */
  make_spare();
}

/* Descriptors a start closes: the stages' ends once they hold them, or everything when it fails. */
struct fds { int *v; size_t n; };
static int keep(struct fds *l, int fd) {
  return l->v[l->n++] = fd;
}
static void close_all(struct fds *l) {
  while (l->n > 0) close(l->v[--l->n]);
}

/*
 * Starts a call's stages: the spare for a single stage writing to a pipe, else a stage process per stage with the
 * call's pipes (and the output file the server checked, opened again by its path and accepted only as that file).
 * Each gets the whole order and its index; the first its stdin (pipe or null), the others what the one before writes.
 */
static void start(struct call *c, const char *payload, size_t len) {
  struct proc *p = calloc(c->count, sizeof *p);
  struct fds theirs = {calloc(4 * c->count, sizeof(int)), 0}, ours = {calloc(2 + c->count, sizeof(int)), 0};
  int in = -1, out = -1, *errs = calloc(c->count, sizeof *errs), prev = -1, pp[2];
  char *line = malloc(32 * c->count + 64), *at;
  if (!p || !theirs.v || !ours.v || !errs || !line) abort();
  size_t made = 0, given = 0;
  char why[4200] = "";
  int to_pipe = strcmp(c->stdout_kind, "pipe") == 0;
  if (nstages + c->count > sizeof stage_of / sizeof stage_of[0]) snprintf(why, sizeof why, "too many stages running");
  else if (c->count == 1 && to_pipe && have_spare) {
    have_spare = 0;
    if (ready(&spare)) {
      in = keep(&ours, spare.in), out = keep(&ours, spare.out), errs[0] = keep(&ours, spare.err);
      p[made++] = spare;
      p[0].in = p[0].out = p[0].err = -1; /* (ours now) */
    } else discard(&spare);
  }
  for (size_t i = made; i < c->count && !*why; i++) {
    int i0 = prev, o1, e2;
    if (i == 0 && pipe2(pp, O_CLOEXEC) == 0) i0 = keep(&theirs, pp[0]), in = keep(&ours, pp[1]);
    if (i + 1 < c->count && pipe2(pp, O_CLOEXEC) == 0) o1 = keep(&theirs, pp[1]), prev = keep(&theirs, pp[0]);
    else if (i + 1 == c->count && to_pipe && pipe2(pp, O_CLOEXEC) == 0) o1 = keep(&theirs, pp[1]), out = keep(&ours, pp[0]);
    else if (i + 1 == c->count && !to_pipe) {
      char got[64];
      o1 = open(c->stdout_kind, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | (c->append ? O_APPEND : 0));
      if (o1 < 0) snprintf(why, sizeof why, "refuse the output file %s cannot be opened: %s", c->stdout_kind, strerror(errno));
      else if (identity_fd(keep(&theirs, o1), got, sizeof got) < 0 || strcmp(got, c->out_id) != 0) snprintf(why, sizeof why, "refuse the output file %s is not the one that was checked", c->stdout_kind);
      else fcntl(o1, F_SETFL, fcntl(o1, F_GETFL) & ~O_NONBLOCK);
    } else o1 = -1;
    if (*why) break;
    if (i0 < 0 || o1 < 0 || pipe2(pp, O_CLOEXEC) < 0) {
      snprintf(why, sizeof why, "pipe %s", strerror(errno));
      break;
    }
    e2 = keep(&theirs, pp[1]), errs[i] = keep(&ours, pp[0]);
    if (new_stage_process(i0, o1, e2, &p[i]) < 0) snprintf(why, sizeof why, "fork %s", strerror(errno));
    else if (made++, !ready(&p[i])) snprintf(why, sizeof why, "the stage ended before its exec");
  }
  close_all(&theirs); /* the stages hold them now */
  for (; given < made && !*why; given++)
    if (give(&p[given], given, given > 0 ? "inherit" : c->stdin_kind, payload, len, why, sizeof why)) break;
  if (*why) {
    /* Nothing of the call runs: the stage processes already given theirs (and their commands), and the rest. */
    for (size_t i = 0; i < made; i++)
      if (i < given) kill(-p[i].pid, SIGKILL);
      else if (i > given || p[i].orders >= 0) discard(&p[i]);
    close_all(&ours);
    say(1, "F %s %s\n", c->id, why);
  } else {
    /* "S id pid,... in out err,...": the server's ends by their descriptors here, held until it says "A". */
    int piped = strcmp(c->stdin_kind, "pipe") == 0;
    at = line + sprintf(line, "S %s ", c->id);
    for (size_t i = 0; i < made; i++) {
      at += sprintf(at, "%s%d", i ? "," : "", p[i].host);
      stage_of[nstages].pid = p[i].pid, stage_of[nstages].index = (int)i;
      snprintf(stage_of[nstages++].id, sizeof stage_of[0].id, "%s", c->id);
    }
    at += piped ? sprintf(at, " %d", in) : sprintf(at, " -");
    at += out >= 0 ? sprintf(at, " %d ", out) : sprintf(at, " - ");
    for (size_t i = 0; i < made; i++) at += sprintf(at, "%s%d", i ? "," : "", errs[i]);
    for (size_t i = 0; i < ours.n; i++)
      if (ours.v[i] == in && !piped) close(in);
      else hold(c->id, ours.v[i]);
    at += sprintf(at, "\n");
    write_all(1, line, (size_t)(at - line)); /* (not say(): a long pipeline's line is longer than its buffer) */
  }
  free(p), free(theirs.v), free(ours.v), free(errs), free(line);
}

static void order(char *payload, size_t len) {
  char *f[3] = {payload, NULL, NULL};
  for (int i = 1; i < 3; i++) f[i] = f[i - 1] + strlen(f[i - 1]) + 1 <= payload + len ? f[i - 1] + strlen(f[i - 1]) + 1 : payload + len;
  if (strcmp(f[0], "A") == 0) return release(f[1]);
  if (strcmp(f[0], "M") == 0) {
    size_t count = strtoul(f[2], NULL, 10), made = 0;
    if (count > MAX_STAGES) return say(1, "F %.20s too many pipes\n", f[1]);
    int (*ends)[2] = calloc(count + 1, sizeof *ends);
    char *line = malloc(32 * count + 64), *at;
    if (!ends || !line) abort();
    at = line + sprintf(line, "M %.20s", f[1]);
    while (made < count && pipe2(ends[made], O_CLOEXEC) == 0) at += sprintf(at, " %d,%d", ends[made][0], ends[made][1]), made++;
    if (made < count) say(1, "F %.20s pipe %s\n", f[1], strerror(errno));
    else at += sprintf(at, "\n"), write_all(1, line, (size_t)(at - line));
    for (size_t i = 0; i < made; i++)
      if (made < count) close_pair(ends[i]);
      else hold(f[1], ends[i][0]), hold(f[1], ends[i][1]);
    return free(ends), free(line);
  }
  /* The stages get the order as it came: a copy, since parsing it here cuts it into fields. */
  char *copy = malloc(len + 1);
  struct call c;
  if (!copy) abort();
  memcpy(copy, payload, len + 1);
  if (parse_call(payload, len, &c)) start(&c, copy, len);
  else say(1, "F %.20s a malformed order\n", f[1]);
  free_call(&c);
  free(copy);
}

/* Nothing inherited but 0/1/2 (the server gives this program as descriptor 3, which it was started from). */
static void close_inherited(void) {
#ifdef SYS_close_range
  if (syscall(SYS_close_range, 3, ~0U, 0) == 0) return;
#endif
  for (int fd = 3; fd < 1024; fd++) close(fd);
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
  if (argc < 2 || (strcmp(argv[1], "root") != 0 && sscanf(argv[1], "%lu:%lu", &uid, &gid) != 2)) {
    say(2, "usage: guarded-shell-launcher root|<uid>:<gid> [--trial]\n");
    return 2;
  }
  user_ns = strcmp(argv[1], "root") != 0;
  close_inherited();
  trial = argc > 2 && strcmp(argv[2], "--trial") == 0;
  rename_to("guarded-shell-launcher");
  if (pipe2(wake, O_CLOEXEC | O_NONBLOCK) < 0) return 1;
  set_signal(SIGCHLD, on_sigchld);
  set_signal(SIGPIPE, SIG_IGN);
  say(1, "READY %d\n", host_pid());
  make_spare();
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
      /* The server is gone: so is this namespace, with every stage in it. (A trial first waits for its stages.) */
      int st;
      pid_t pid;
      while (trial && nstages > 0 && ((pid = waitpid(-1, &st, 0)) > 0 || errno == EINTR))
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
