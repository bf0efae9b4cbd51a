// Shim for the Linux event APIs the dashboard's loop uses that Swift's Glibc module does not
// import: epoll, timerfd, signalfd, eventfd, the thread-name prctl, glibc's GNU spawn
// file actions (closefrom, chdir), renameat2, pidfd_open and the child-subreaper prctl. Header only.
#ifndef WIDGETHOST_CLINUX_SHIM_H
#define WIDGETHOST_CLINUX_SHIM_H
#include <stdint.h>
#include <signal.h>
#include <time.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <sys/signalfd.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <malloc.h>
#include <spawn.h>
#include <fcntl.h>
#include <unistd.h>
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

/// libdispatch's run-loop entry points (`MainLoop` finds them with dlsym), declared weak: when
/// the Swift runtime and Dispatch are linked statically (the release `widgethost`), dlsym cannot
/// see them (the static libraries' symbols are not exported) and these are the way in; NULL
/// when absent.
extern int _dispatch_get_main_queue_handle_4CF(void) __attribute__((weak));
extern void _dispatch_main_queue_callback_4CF(void *) __attribute__((weak));
static inline void *wh_dispatch_main_queue_handle(void) { return (void *)_dispatch_get_main_queue_handle_4CF; }
static inline void *wh_dispatch_main_queue_callback(void) { return (void *)_dispatch_main_queue_callback_4CF; }

static inline int wh_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

/// Watches `fd` for input (level-triggered); `data` comes back in `wh_epoll_wait`.
static inline int wh_epoll_add(int epfd, int fd, uint64_t data) {
    struct epoll_event ev = { .events = EPOLLIN, .data = { .u64 = data } };
    return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev);
}

static inline int wh_epoll_remove(int epfd, int fd) { return epoll_ctl(epfd, EPOLL_CTL_DEL, fd, NULL); }

/// Waits for up to `capacity` ready descriptors; writes their `data` to `out`.
static inline int wh_epoll_wait(int epfd, uint64_t *out, int capacity, int timeout_ms) {
    struct epoll_event events[16];
    if (capacity > 16) capacity = 16;
    int n = epoll_wait(epfd, events, capacity, timeout_ms);
    for (int i = 0; i < n; i++) out[i] = events[i].data.u64;
    return n;
}

/// A non-blocking wall-clock timer descriptor.
static inline int wh_timerfd_create_realtime(void) { return timerfd_create(CLOCK_REALTIME, TFD_NONBLOCK | TFD_CLOEXEC); }

/// Arms `fd` once at the absolute wall-clock time (seconds, nanoseconds); (0, 0) disarms.
/// Wakes early with ECANCELED on the next read when the wall clock is set.
static inline int wh_timerfd_arm(int fd, int64_t seconds, long nanoseconds) {
    struct itimerspec spec = { .it_interval = { 0, 0 }, .it_value = { (time_t)seconds, nanoseconds } };
    return timerfd_settime(fd, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, &spec, NULL);
}

/// The absolute expiry currently armed on `fd` (relative time left, in nanoseconds), or -1.
static inline int64_t wh_timerfd_remaining_ns(int fd) {
    struct itimerspec spec;
    if (timerfd_gettime(fd, &spec) != 0) return -1;
    return (int64_t)spec.it_value.tv_sec * 1000000000 + spec.it_value.tv_nsec;
}

/// A non-blocking signal descriptor for the signals in `mask` (they must be blocked).
static inline int wh_signalfd(const sigset_t *mask) { return signalfd(-1, mask, SFD_NONBLOCK | SFD_CLOEXEC); }

/// Reads one signal from a signal descriptor: its number, or -1 when none is pending.
static inline int wh_signalfd_read(int fd) {
    struct signalfd_siginfo info;
    ssize_t n = read(fd, &info, sizeof info);
    return n == (ssize_t)sizeof info ? (int)info.ssi_signo : -1;
}

static inline int wh_eventfd(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }

/// A monotonic timerfd (the control socket's deadlines), armed `ms` from now (0 disarms).
static inline int wh_timerfd_create_monotonic(void) { return timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC); }
static inline int wh_timerfd_arm_in(int fd, int64_t ms) {
    struct itimerspec spec = {{0, 0}, {ms / 1000, (long)(ms % 1000) * 1000000L}};
    if (ms > 0 && spec.it_value.tv_sec == 0 && spec.it_value.tv_nsec == 0) spec.it_value.tv_nsec = 1;
    return timerfd_settime(fd, 0, &spec, NULL);
}

/// A Unix stream socket bound to `path` and listening (non-blocking, close-on-exec), created
/// with mode 0600 (the umask is applied to the bind); -errno on failure (a path too long is
/// -ENAMETOOLONG).
static inline int wh_unix_listen(const char *path, int backlog) {
    struct sockaddr_un address;
    memset(&address, 0, sizeof address);
    address.sun_family = AF_UNIX;
    if (strlen(path) >= sizeof address.sun_path) return -ENAMETOOLONG;
    strcpy(address.sun_path, path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return -errno;
    mode_t old = umask(0177);
    int bound = bind(fd, (struct sockaddr *)&address, sizeof address);
    int saved = errno;
    umask(old);
    if (bound != 0 || listen(fd, backlog) != 0) {
        if (bound == 0) saved = errno;
        close(fd);
        return -saved;
    }
    return fd;
}

/// A blocking connection to the Unix socket at `path` (close-on-exec); -errno on failure.
static inline int wh_unix_connect(const char *path) {
    struct sockaddr_un address;
    memset(&address, 0, sizeof address);
    address.sun_family = AF_UNIX;
    if (strlen(path) >= sizeof address.sun_path) return -ENAMETOOLONG;
    strcpy(address.sun_path, path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -errno;
    if (connect(fd, (struct sockaddr *)&address, sizeof address) != 0) {
        int saved = errno;
        close(fd);
        return -saved;
    }
    return fd;
}

/// Accepts one connection, made non-blocking and close-on-exec; -errno (-EAGAIN: none
/// waiting). (`accept4` and `struct ucred` need _GNU_SOURCE, which would give this module a
/// `fd_set` other than the Glibc module's: plain `accept`, then `fcntl`; children of ours
/// close every descriptor above 2 anyway.)
static inline int wh_unix_accept(int fd) {
    int client = accept(fd, NULL, NULL);
    if (client < 0) return -errno;
    if (fcntl(client, F_SETFD, FD_CLOEXEC) != 0 || fcntl(client, F_SETFL, fcntl(client, F_GETFL) | O_NONBLOCK) != 0) {
        int saved = errno;
        close(client);
        return -saved;
    }
    return client;
}

/// The user id of the process at the other end of a Unix socket (SO_PEERCRED: the kernel's
/// `struct ucred`, pid, uid, gid), or -1.
static inline long wh_peer_uid(int fd) {
    struct { pid_t pid; uid_t uid; gid_t gid; } credentials;
    socklen_t length = sizeof credentials;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return -1;
    return (long)credentials.uid;
}

/// Names the calling thread (15 bytes at most), as `ps -L` and /proc show it.
static inline void wh_set_thread_name(const char *name) { prctl(PR_SET_NAME, name, 0, 0, 0); }

// At most `count` malloc arenas for the process (glibc otherwise makes one per thread that
// allocates, each with heap pages of its own).
static inline void wh_limit_malloc_arenas(int count) { mallopt(M_ARENA_MAX, count); }
// glibc 2.34+ / 2.29+ declare these only under _GNU_SOURCE, which Swift's Glibc module lacks.
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *, int);
extern int posix_spawn_file_actions_addtcsetpgrp_np(posix_spawn_file_actions_t *, int);
extern int pipe2(int fds[2], int flags);
extern int posix_spawn_file_actions_addchdir_np(posix_spawn_file_actions_t *__restrict, const char *__restrict);

extern int renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, unsigned int flags);

/// Swaps the files at `a` and `b` atomically (`renameat2` with RENAME_EXCHANGE; both must
/// exist): 0, or -1 with errno (EINVAL where the file system cannot, ENOENT when one is missing).
static inline int wh_rename_exchange(const char *a, const char *b) {
    return renameat2(AT_FDCWD, a, AT_FDCWD, b, 1u << 1 /* RENAME_EXCHANGE */);
}

/// A pipe whose two ends are close-on-exec (no other child inherits them).
static inline int wh_pipe_cloexec(int fds[2]) { return pipe2(fds, O_CLOEXEC); }

/// The child closes every descriptor from `from` up before it runs the program.
// The child makes its own process group the terminal's foreground one before it execs (glibc
// 2.35+), so nothing it prints or reads happens while the terminal still belongs to the host.
static inline int wh_spawn_add_foreground(posix_spawn_file_actions_t *actions, int terminal) {
    return posix_spawn_file_actions_addtcsetpgrp_np(actions, terminal);
}
static inline int wh_spawn_add_closefrom(posix_spawn_file_actions_t *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}

/// The child changes to `path` before it runs the program.
static inline int wh_spawn_add_chdir(posix_spawn_file_actions_t *actions, const char *path) {
    return posix_spawn_file_actions_addchdir_np(actions, path);
}
/// A descriptor for process `pid` that polls readable once it has ended (`pidfd_open`,
/// Linux 5.3), close-on-exec; -1 with errno (ENOSYS on an older kernel, ESRCH when gone).
static inline int wh_pidfd_open(int pid) { return (int)syscall(434 /* SYS_pidfd_open */, pid, 0); }

/// Makes the host the reaper of its orphaned descendants (`PR_SET_CHILD_SUBREAPER`): a process
/// whose parent ends is re-parented to the host rather than to init. 0, or -1 with errno.
static inline int wh_set_child_subreaper(void) { return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); }
static inline int wh_clear_child_subreaper(void) { return prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0); }

// Defined in CLazyLibraries, which opens libcurl and libmosquitto at their first call (see its
// lazy_libraries.h): why each cannot be used, or NULL; the check looks up all of libcurl's.
const char *wh_lazy_curl_error(void);
const char *wh_lazy_curl_check(void);
const char *wh_lazy_mosquitto_error(void);
#endif
