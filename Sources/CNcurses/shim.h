// Shim for ncursesw + panelw.
//
// SwiftPM drops pkg-config's -D flags, so the wide-character API must be switched on here,
// before the header is read. C globals (stdscr, COLS, LINES, COLORS) are mutable state that
// Swift 6 rejects, and attributes / ACS characters are macros Swift cannot import: both are
// reached through the static inline accessors below.
#ifndef WIDGETHOST_CNCURSES_SHIM_H
#define WIDGETHOST_CNCURSES_SHIM_H

#define NCURSES_WIDECHAR 1
#define _XOPEN_SOURCE_EXTENDED 1
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE 1
#endif
#include <wchar.h>
#include <locale.h>
#include <ncursesw/curses.h>
#include <ncursesw/panel.h>
#include <ncursesw/term.h>
#include <stdio.h>
#include <sys/ioctl.h>

static inline WINDOW *wh_stdscr(void) { return stdscr; }
static inline WINDOW *wh_curscr(void) { return curscr; }
static inline FILE *wh_stdout(void) { return stdout; }
static inline FILE *wh_stdin(void) { return stdin; }
static inline int wh_cols(void) { return COLS; }
static inline int wh_lines(void) { return LINES; }
static inline int wh_colors(void) { return COLORS; }
static inline int wh_color_pairs(void) { return COLOR_PAIRS; }

static inline attr_t wh_a_normal(void) { return A_NORMAL; }
static inline attr_t wh_a_bold(void) { return A_BOLD; }
static inline attr_t wh_a_dim(void) { return A_DIM; }
static inline attr_t wh_a_reverse(void) { return A_REVERSE; }
static inline attr_t wh_a_underline(void) { return A_UNDERLINE; }
static inline attr_t wh_a_italic(void) { return A_ITALIC; }
static inline attr_t wh_a_standout(void) { return A_STANDOUT; }

static inline int wh_key_resize(void) { return KEY_RESIZE; }
static inline int wh_key_code_yes(void) { return KEY_CODE_YES; }
static inline int wh_key_mouse(void) { return KEY_MOUSE; }

/// Where curses believes the terminal's cursor is (after `doupdate`).
static inline int wh_cursor_row(void) { return getcury(curscr); }
static inline int wh_cursor_column(void) { return getcurx(curscr); }

/// Output for an OSC 8 hyperlink drawn over cells curses has already drawn: every byte goes
/// through curses' own output (so it stays in order), the cursor moves with `mvcur` and the
/// attributes with `vid_attr`, so curses' idea of the terminal stays true.
static inline void wh_move_cursor(int fromRow, int fromColumn, int row, int column) { mvcur(fromRow, fromColumn, row, column); }
static inline void wh_put_bytes(const char *bytes) { putp(bytes); }
static inline void wh_set_attributes(attr_t attributes, short pair) { vid_attr(attributes, pair, NULL); }
/// Sends what curses holds for the terminal now (`doupdate` with nothing to draw does not).
static inline void wh_flush_output(void) { fflush(stdout); }

/// Turns mouse reports on (the left button's presses and the wheel, with no click resolution:
/// the host tells a double click itself) or off. ncurses picks the protocol from terminfo:
/// SGR 1006 where the entry has XM (xterm and its kin), else X10.
static inline int wh_mouse_enable(int on) {
    mmask_t old;
    mmask_t wanted = on ? (BUTTON1_PRESSED | BUTTON1_RELEASED | BUTTON4_PRESSED
#ifdef BUTTON5_PRESSED
                           | BUTTON5_PRESSED
#endif
                          ) : 0;
    mouseinterval(0);
    mousemask(wanted, &old);
    return 0;
}

/// The mouse event behind a KEY_MOUSE: its cell in *x, *y; returns 1 for a left press, 2 for
/// the wheel up, 3 for the wheel down, 0 for anything else, -1 when there is none.
static inline int wh_mouse_event(int *x, int *y) {
    MEVENT event;
    if (getmouse(&event) != OK) return -1;
    *x = event.x;
    *y = event.y;
    if (event.bstate & BUTTON1_PRESSED) return 1;
    if (event.bstate & BUTTON4_PRESSED) return 2;
#ifdef BUTTON5_PRESSED
    if (event.bstate & BUTTON5_PRESSED) return 3;
#endif
    return 0;
}

/// Writes one wide character with attributes and colour pair at (y, x) of `win`.
/// Returns ERR when the position is outside the window (e.g. the last cell of the screen
/// when scrolling is off), which callers may ignore.
static inline int wh_put_wch(WINDOW *win, int y, int x, const wchar_t *wch, attr_t attrs, short pair) {
    cchar_t c;
    if (setcchar(&c, wch, attrs, pair, NULL) == ERR) return ERR;
    return mvwadd_wch(win, y, x, &c);
}

/// Inserts one wide character at (y, x) without moving the cursor past it: the way to fill
/// the bottom-right cell of the screen without scrolling.
static inline int wh_ins_wch(WINDOW *win, int y, int x, const wchar_t *wch, attr_t attrs, short pair) {
    cchar_t c;
    if (setcchar(&c, wch, attrs, pair, NULL) == ERR) return ERR;
    return mvwins_wch(win, y, x, &c);
}

/// The size of the terminal on `fd` (TIOCGWINSZ; ioctl is variadic, which Swift cannot call).
/// Returns 0 and sets *rows, *cols on success, -1 otherwise.
static inline int wh_window_size(int fd, int *rows, int *cols) {
    struct winsize ws;
    if (ioctl(fd, TIOCGWINSZ, &ws) != 0 || ws.ws_row == 0 || ws.ws_col == 0) return -1;
    *rows = ws.ws_row;
    *cols = ws.ws_col;
    return 0;
}

// The async-signal-safe path that gives the terminal back on a fatal signal.
#include "restore.h"

#endif
