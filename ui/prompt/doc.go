// Package prompt is the one-line question the footer asks: a marker's
// text (m), a time to go to (t), the process table's filter (/ in the
// table). It owns its state, its keys (rows of the key table: enter
// answers, esc cancels, backspace and ctrl+u erase, any other key types
// itself) and its row; what an answer does is the asker's, handed over as
// functions.
//
// It is a few lines rather than bubbles' textinput because that one blinks
// its cursor on a timer, and a screen that redraws itself twice a second
// costs bytes over SSH and breaks "a paused screen writes nothing".
package prompt
