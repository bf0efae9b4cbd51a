// Gives the terminal back when a fatal signal ends the process while curses owns the screen.
//
// Only CursesBackend may call these functions: the state below is `static`, so each Swift
// module that calls into this header gets a copy of its own, and there must be exactly one.
//
// Everything the handler needs is computed beforehand, outside any signal: the bytes that
// leave the curses screen (terminfo rmkx, sgr0, op, cnorm, rmcup — what endwin sends) in a
// fixed buffer, and the termios saved before curses changed the terminal. The handler only
// calls async-signal-safe functions (write, tcsetattr, tcgetpgrp, getpgrp, sigaction, raise);
// no Swift code runs in it.
//
// Order on a fatal signal: the terminal is restored first; then the previous disposition runs
// (in a Swift 6 program on Linux that is the runtime's backtracer, which prints on the normal
// screen once the terminal is back); then the signal's default action ends the process, so
// the exit status is the signal's (132 SIGILL, 134 SIGABRT, 139 SIGSEGV…). That last step
// matters for SIGQUIT and other signals sent with kill(2): the Swift backtracer returns from
// its handler for those and the program would run on, drawing over the restored terminal.
// A fault raised by the CPU (si_code > 0 on SIGSEGV, SIGBUS, SIGILL, SIGFPE) is instead
// handed back by returning: the faulting instruction runs again under the previous handler,
// which so sees the genuine fault, then under the default action.
#ifndef WIDGETHOST_CNCURSES_RESTORE_H
#define WIDGETHOST_CNCURSES_RESTORE_H

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <termios.h>
#include <unistd.h>
#include <ncursesw/curses.h>
#include <ncursesw/term.h>

#define WH_RESTORE_BYTES 512

/// The signals whose default action ends the process and that the dashboard does not read
/// on its signalfd (WINCH, TERM, INT, HUP, TSTP are read there; PIPE is ignored; KILL and
/// STOP cannot be caught). Real-time signals are left alone: glibc reserves some of them.
static const int wh_restore_signals[] = {
    SIGQUIT, SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE, SIGSEGV, SIGSYS,
    SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU, SIGXFSZ, SIGIO, SIGPWR,
#ifdef SIGSTKFLT
    SIGSTKFLT,
#endif
};
#define WH_RESTORE_SIGNAL_COUNT ((int)(sizeof wh_restore_signals / sizeof wh_restore_signals[0]))

/// Crash signals that another handler (the Swift runtime's backtracer) may already own; ours
/// goes in front of it. Every other signal is only taken while its disposition is SIG_DFL, so
/// a handler someone installed on purpose (or SIG_IGN, e.g. under nohup) is respected.
static inline int wh_restore_is_crash_signal(int sig) {
    return sig == SIGQUIT || sig == SIGILL || sig == SIGTRAP || sig == SIGABRT || sig == SIGBUS || sig == SIGFPE
        || sig == SIGSEGV || sig == SIGSYS;
}

static struct {
    int fd;                           /* the terminal curses writes to */
    int have_termios;
    struct termios termios;           /* as it was before curses changed it */
    char bytes[WH_RESTORE_BYTES];     /* leave the curses screen, show the cursor */
    size_t length;
    volatile sig_atomic_t on_screen;  /* 0 while suspended (Ctrl-Z): the terminal is the shell's */
    int done;                         /* set once the terminal was restored (atomic exchange) */
    int installed;
    int installed_signal[NSIG];
    struct sigaction previous[NSIG];
    void *altstack;                   /* ours, when the thread had none */
    size_t altstack_size;
} wh_restore_state = { .fd = -1 };

/// Writes all of `bytes`, retrying after EINTR and short writes. Async-signal-safe.
static inline void wh_restore_write_all(int fd, const char *bytes, size_t length) {
    while (length > 0) {
        ssize_t written = write(fd, bytes, length);
        if (written < 0) {
            if (errno == EINTR) continue;
            return;
        }
        bytes += written;
        length -= (size_t)written;
    }
}

/// Restores the terminal once (later calls, from any thread, do nothing). Async-signal-safe.
/// The terminal is left alone while suspended, and when this process is not in its foreground
/// (after `bg`, tcsetattr would stop it with SIGTTOU).
static inline void wh_restore_terminal_now(void) {
    if (!wh_restore_state.on_screen) return;
    if (__atomic_exchange_n(&wh_restore_state.done, 1, __ATOMIC_ACQ_REL)) return;
    int fd = wh_restore_state.fd;
    if (fd < 0) return;
    pid_t foreground = tcgetpgrp(fd);
    if (foreground > 0 && foreground != getpgrp()) return;
    wh_restore_write_all(fd, wh_restore_state.bytes, wh_restore_state.length);
    // TCSANOW, not TCSADRAIN: draining would hang here for good when the user has stopped
    // output with Ctrl-S; the bytes above were already processed under the old settings.
    if (wh_restore_state.have_termios) {
        while (tcsetattr(fd, TCSANOW, &wh_restore_state.termios) != 0 && errno == EINTR) {}
    }
}

/// Whether `info` is a fault the CPU raised: returning re-executes the faulting instruction.
/// (Not a machine-check SIGBUS reported asynchronously, BUS_MCEERR_AO: nothing would re-fault.)
static inline int wh_restore_is_hardware_fault(int sig, const siginfo_t *info) {
    if (info == NULL || info->si_code <= 0) return 0;
#ifdef BUS_MCEERR_AO
    if (sig == SIGBUS && info->si_code == BUS_MCEERR_AO) return 0;
#endif
    return sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE;
}

/// The handler: restore the terminal, run what was there before us, then die of `sig`.
static void wh_restore_handler(int sig, siginfo_t *info, void *context) {
    int saved_errno = errno;
    wh_restore_terminal_now();
    struct sigaction previous = wh_restore_state.previous[sig];
    sigaction(sig, &previous, NULL);
    if (wh_restore_is_hardware_fault(sig, info)) {
        // The instruction faults again on return, now under the previous handler (with the
        // genuine fault address and context) or the default action.
        errno = saved_errno;
        return;
    }
    if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
        if (previous.sa_flags & SA_SIGINFO) previous.sa_sigaction(sig, info, context);
        else previous.sa_handler(sig);
    }
    // Whatever the previous handler did (the Swift backtracer returns for a signal sent by
    // kill), end with the default action so the exit status says which signal it was. `sig`
    // is blocked while this handler runs: it is delivered as soon as the handler returns.
    struct sigaction fallback;
    memset(&fallback, 0, sizeof fallback);
    fallback.sa_handler = SIG_DFL;
    sigemptyset(&fallback.sa_mask);
    sigaction(sig, &fallback, NULL);
    raise(sig);
    errno = saved_errno;
}

/// Saves the terminal settings of `fd`, before curses changes them. Call before `newterm`.
static inline void wh_restore_save_termios(int fd) {
    wh_restore_state.fd = fd;
    wh_restore_state.have_termios = tcgetattr(fd, &wh_restore_state.termios) == 0;
}

/// Appends `value` (a terminfo string) without its padding (`$<…>`); NULL and the "not a
/// string" marker add nothing, and a string that does not fit whole is left out.
static inline void wh_restore_append(const char *value) {
    if (value == NULL || value == (const char *)-1) return;
    size_t length = wh_restore_state.length;
    for (const char *p = value; *p != '\0'; p++) {
        if (p[0] == '$' && p[1] == '<') {
            const char *end = strchr(p, '>');
            if (end != NULL) { p = end; continue; }
        }
        if (length >= WH_RESTORE_BYTES) return;
        wh_restore_state.bytes[length++] = *p;
    }
    wh_restore_state.length = length;
}

/// Whether terminfo string capability `name` of the current terminal is present and not empty.
static inline int wh_restore_has(const char *name) {
    const char *value = tigetstr(name);
    return value != NULL && value != (const char *)-1 && value[0] != '\0';
}

/// Computes the bytes that leave the screen of the current curses terminal, as endwin does:
/// keypad off, attributes and colours reset, normal cursor, leave the alternate screen. A
/// terminal without one (vt100, the Linux console) gets the cursor on its last row instead,
/// where the shell's prompt then comes (a row past the end is clamped to the last one, so
/// the number needs no update on resize).
static inline void wh_restore_prepare_bytes(void) {
    wh_restore_state.length = 0;
    wh_restore_append(tigetstr("rmkx"));
    wh_restore_append(tigetstr("sgr0"));
    wh_restore_append(tigetstr("op"));
    wh_restore_append(tigetstr("cnorm"));
    // Mouse reports off (the dashboard may have turned them on): the terminal's own way
    // (XM, as ncurses turns them on), else the X10 mode ncurses uses without it.
    if (wh_restore_has("XM")) {
        wh_restore_append(tiparm(tigetstr("XM"), 0));
    } else if (wh_restore_has("kmous")) {
        wh_restore_append("\033[?1000l");
    }
    if (wh_restore_has("rmcup")) {
        wh_restore_append(tigetstr("rmcup"));
    } else if (wh_restore_has("cup")) {
        wh_restore_append(tiparm(tigetstr("cup"), 9999, 0));
    }
}

/// Gives the calling thread an alternate signal stack when it has none, so a stack overflow
/// (SIGSEGV) still reaches the handler. The Swift runtime gives the main thread one already.
static inline void wh_restore_ensure_altstack(void) {
    stack_t current;
    if (sigaltstack(NULL, &current) != 0) return;
    if (!(current.ss_flags & SS_DISABLE) && current.ss_sp != NULL) return;
    size_t size = 64 * 1024;
    void *memory = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED) return;
    stack_t stack = { .ss_sp = memory, .ss_flags = 0, .ss_size = size };
    if (sigaltstack(&stack, NULL) != 0) {
        munmap(memory, size);
        return;
    }
    wh_restore_state.altstack = memory;
    wh_restore_state.altstack_size = size;
}

/// Builds the bytes for the current curses terminal and installs the handlers.
/// Call after `newterm` and the terminal set-up, on the thread that runs curses.
/// Returns the number of signals taken over.
static inline int wh_restore_install(void) {
    wh_restore_prepare_bytes();
    __atomic_store_n(&wh_restore_state.done, 0, __ATOMIC_RELEASE);
    wh_restore_state.on_screen = 1;
    if (wh_restore_state.installed) return 0;
    wh_restore_ensure_altstack();
    struct sigaction ours;
    memset(&ours, 0, sizeof ours);
    ours.sa_sigaction = wh_restore_handler;
    ours.sa_flags = SA_SIGINFO | SA_ONSTACK;
    // Like the Swift runtime: block everything while the handler runs except the crash
    // signals, so a crash inside it (or inside the previous handler it calls) still ends us.
    sigfillset(&ours.sa_mask);
    for (int i = 0; i < WH_RESTORE_SIGNAL_COUNT; i++) {
        if (wh_restore_is_crash_signal(wh_restore_signals[i])) sigdelset(&ours.sa_mask, wh_restore_signals[i]);
    }
    int count = 0;
    for (int i = 0; i < WH_RESTORE_SIGNAL_COUNT; i++) {
        int sig = wh_restore_signals[i];
        struct sigaction previous;
        if (sigaction(sig, NULL, &previous) != 0) continue;
        if (previous.sa_handler == SIG_IGN) continue;
        if (previous.sa_handler != SIG_DFL && !wh_restore_is_crash_signal(sig)) continue;
        wh_restore_state.previous[sig] = previous;
        if (sigaction(sig, &ours, NULL) != 0) continue;
        wh_restore_state.installed_signal[sig] = 1;
        count++;
    }
    wh_restore_state.installed = 1;
    return count;
}

/// Tells the handler the terminal is the shell's now (after endwin for Ctrl-Z): leave it be.
static inline void wh_restore_leave_screen(void) { wh_restore_state.on_screen = 0; }

/// Tells the handler curses takes the screen again (after SIGCONT, before the repaint). The
/// settings the terminal has now become the ones to restore, so a change the user made while
/// the program was stopped sticks (ncurses does the same with def_shell_mode on resume).
static inline void wh_restore_take_screen(void) {
    if (wh_restore_state.fd < 0) return;
    struct termios now;
    if (tcgetattr(wh_restore_state.fd, &now) == 0) {
        wh_restore_state.termios = now;
        wh_restore_state.have_termios = 1;
    }
    wh_restore_state.on_screen = 1;
}

/// Puts back the dispositions found at install (for the signals whose handler is still ours)
/// and drops the alternate stack made for it. Call after endwin, when the backend ends.
static inline void wh_restore_uninstall(void) {
    wh_restore_state.on_screen = 0;
    if (!wh_restore_state.installed) return;
    for (int sig = 1; sig < NSIG; sig++) {
        if (!wh_restore_state.installed_signal[sig]) continue;
        wh_restore_state.installed_signal[sig] = 0;
        struct sigaction current;
        if (sigaction(sig, NULL, &current) != 0) continue;
        if ((current.sa_flags & SA_SIGINFO) && current.sa_sigaction == wh_restore_handler) {
            sigaction(sig, &wh_restore_state.previous[sig], NULL);
        }
    }
    if (wh_restore_state.altstack != NULL) {
        stack_t current;
        if (sigaltstack(NULL, &current) == 0 && current.ss_sp == wh_restore_state.altstack
            && !(current.ss_flags & SS_ONSTACK)) {
            stack_t off = { .ss_sp = NULL, .ss_flags = SS_DISABLE, .ss_size = 0 };
            if (sigaltstack(&off, NULL) == 0) munmap(wh_restore_state.altstack, wh_restore_state.altstack_size);
        }
        wh_restore_state.altstack = NULL;
    }
    wh_restore_state.installed = 0;
}

#endif
