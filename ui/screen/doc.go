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
//
// Run also does, for this renderer, what bubbletea does for its own and
// what htop does: in raw mode Ctrl-Z is a key, not a signal, so Model
// takes it (the UI never sees it), gives the terminal back to the shell
// (main screen, cursor, cooked mode) and stops the process group with
// SIGTSTP; on fg it sets the terminal up again, reads its size and draws
// every cell, as the shell has drawn over the screen meanwhile. After a
// stop it did not ask for (kill -STOP, kill -TSTP), SIGCONT does the same
// setting up and drawing. Continued as a background job (bg), gputop
// runs on unseen, neither drawing nor reading keys, until fg.
//
// Signals that end the program are the caller's, not bubbletea's: it
// cancels Run's context, and Run ends as on a quit. A hang-up (the SSH
// session ended) comes with SIGHUP and leaves a terminal that writes fail
// on (EIO); the first frame that fails ends Run too, should nothing have
// cancelled it. Either way it ends quietly: no one is left to tell.
package screen
