// Package layout says where everything on the screen goes for one
// terminal size: Compute takes the size, what the source describes (its
// GPUs), the host's cores and the compact setting, and returns a Layout:
// rows per GPU, how many GPUs the list shows before it scrolls, the width
// of the label, sparkline and number columns, and the rows of the phase
// and hint bands, the hints panel, the detail graph and the process table.
// Below MinSize the screen says it is too small instead.
//
// It is a pure function of those numbers, computed on resize; ui lays a
// session of several hosts out through it (hostLayout) and draws what the
// Layout says. It imports timeline's description of a source only.
package layout
