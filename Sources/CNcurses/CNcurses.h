/* ncurses (wide-character build) from Debian's libncurses-dev, behind a few small
   functions: Swift cannot import curses' macros (A_DIM, COLOR_PAIR, getmaxyx, the mouse
   masks), and WheelTerminal needs only these. Every function is called on one thread. */
#ifndef WHEEL_CNCURSES_H
#define WHEEL_CNCURSES_H
#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1
#endif
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <ncursesw/curses.h>

/* Style bits, as WheelTerminal's Style uses them. */
enum {
    wt_bold = 1, wt_dim = 2, wt_reverse = 4, wt_underline = 8,
    wt_colour_shift = 8,        /* bits 8-11: a colour pair, 0 for none */
};

/* Colour pairs: 1 accent (cyan), 2 error (red), 3 highlight (yellow), 4 good (green). */
static inline void wt_colours(void) {
    if (!has_colors()) return;
    start_color();
    use_default_colors();
    init_pair(1, COLOR_CYAN, -1);
    init_pair(2, COLOR_RED, -1);
    init_pair(3, COLOR_YELLOW, -1);
    init_pair(4, COLOR_GREEN, -1);
}

/* Starts curses on the terminal: raw keys (Ctrl-C is a key), no echo, keypad keys and the
   mouse wheel decoded, reads that never block, no cursor. Returns 0, or -1 when the
   terminal cannot be used (TERM unknown). */
static inline int wt_start(int colour) {
    if (newterm(NULL, stdout, stdin) == NULL) return -1;
    /* A terminal that cannot move its cursor (TERM=dumb) cannot show the UI. */
    char *move = tigetstr("cup");
    if (move == NULL || move == (char *)-1) {
        endwin();
        return -1;
    }
    raw();
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    nodelay(stdscr, TRUE);
    set_escdelay(25);
    curs_set(0);
    leaveok(stdscr, TRUE);      /* the cursor is hidden: no moving it back after a repaint */
    mouseinterval(0);
    mousemask(BUTTON1_PRESSED | BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
    if (colour) wt_colours();
    return 0;
}

static inline void wt_stop(void) { endwin(); }
static inline int wt_rows(void) { return getmaxy(stdscr); }
static inline int wt_cols(void) { return getmaxx(stdscr); }

/* The next input, without waiting: returns ERR when there is none, OK with a character in
   *code, or KEY_CODE_YES with a key code (KEY_UP, KEY_RESIZE, KEY_MOUSE, ...). */
static inline int wt_read(int *code) {
    wint_t wide = 0;
    int status = wget_wch(stdscr, &wide);
    *code = (int)wide;
    return status;
}

/* After KEY_MOUSE: the cell, and the wheel (-1 up, +1 down, 0 a click). Returns -1 when
   there is no event. */
static inline int wt_mouse(int *row, int *col, int *wheel) {
    MEVENT event;
    if (getmouse(&event) != OK) return -1;
    *row = event.y;
    *col = event.x;
    *wheel = (event.bstate & BUTTON4_PRESSED) ? -1 : (event.bstate & BUTTON5_PRESSED) ? 1 : 0;
    return 0;
}

static inline attr_t wt_attributes(int style) {
    attr_t attributes = A_NORMAL;
    if (style & wt_bold) attributes |= A_BOLD;
    if (style & wt_dim) attributes |= A_DIM;
    if (style & wt_reverse) attributes |= A_REVERSE;
    if (style & wt_underline) attributes |= A_UNDERLINE;
    int pair = (style >> wt_colour_shift) & 0xF;
    if (pair && has_colors()) attributes |= COLOR_PAIR(pair);
    return attributes;
}

/* Writes UTF-8 text at a cell in a style; the caller keeps it within the line. */
static inline void wt_put(int row, int col, const char *text, int style) {
    attrset(wt_attributes(style));
    mvaddstr(row, col, text);
    attrset(A_NORMAL);
}

static inline void wt_clear_line(int row) { move(row, 0); clrtoeol(); }
static inline void wt_erase(void) { erase(); }
static inline void wt_refresh(void) { refresh(); }
#endif
