// Package scroll is the screen's one scroll component: which line of a
// list longer than its rows is first on screen. Every panel that scrolls
// keeps an Offset (the help, an opened hint, the process table), moves it
// for its keys and the wheel in Update, and clamps it there to the lines
// and rows it has (Clamp, Follow), so that drawing only reads it.
//
// It knows no keys and no drawing: a panel says what a key means (a line,
// a page, an end), and draws the lines from Top on. Standard library only.
package scroll
