package draw

// Pen is what a panel draws with: the theme's inks, the glyphs, the
// fitter, --ascii and the width of the screen. The screen hands one to
// each panel it draws; a panel keeps none.
type Pen struct {
	Theme *Theme
	Glyph *Glyphs
	Fit   *Fitter
	ASCII bool
	Width int
}

// NewLine starts a row of at most limit columns.
func (p Pen) NewLine(limit int) *Line { return NewLine(p.Fit, limit) }
