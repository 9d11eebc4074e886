// Package screen draws gputop's frames on a terminal, writing only what
// changed since the last frame.
//
// bubbletea's own renderer rewrites every line that changed in any cell.
// gputop's lines are sparklines that move one column to the left each
// second, so that renderer would resend nearly the whole screen every
// second: 14 KB at 200x50, over the budget of 10 KB/s on someone's SSH
// link. This renderer keeps the cells the terminal shows, compares them
// with the next frame cell by cell, and when a line's content has slid
// left it deletes the vacated columns (DCH, as curses does) instead of
// redrawing them, then writes the few cells that are really new.
//
// The program still runs on bubbletea for input, messages and commands;
// Model wraps the UI's model and draws it through a Renderer, and Run sets
// up the terminal (raw input, alternate screen, size changes).
package screen
