// Shim for pseudo-terminals (forkpty) and process-time reads for widgethost-bench; header only.
#ifndef WIDGETHOST_CPTY_SHIM_H
#define WIDGETHOST_CPTY_SHIM_H
#include <pty.h>
#include <unistd.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <termios.h>

/// Starts `path` with `argv`/`envp` on a new pseudo-terminal of `columns`x`rows` as its
/// controlling terminal. Returns the child's pid (and the master side in `master`), or -1.
/// The child only calls execve (or _exit 127), so forking a threaded process is safe.
static inline pid_t wh_forkpty_exec(int *master, const char *path, char *const argv[], char *const envp[],
                                    unsigned short columns, unsigned short rows) {
    struct winsize size = { .ws_row = rows, .ws_col = columns, .ws_xpixel = 0, .ws_ypixel = 0 };
    pid_t pid = forkpty(master, NULL, NULL, &size);
    if (pid == 0) {
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        execve(path, argv, envp);
        _exit(127);
    }
    return pid;
}
#endif
