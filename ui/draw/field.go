package draw

// Field is one number beside the sparklines. Each belongs to a row (power
// limit, temperature and throttling beside the power sparkline); a field
// whose row is not on screen spills into the first rows with room.
type Field struct {
	Text string
	Ink  Ink
}

func (f Field) width() int { return len([]rune(f.Text)) }

// FillRow adds a row's own fields, then as many spilled ones (fields whose
// row is not on screen) as fit; it returns the spill that is left.
func FillRow(ln *Line, own, spill []Field, width int) []Field {
	for _, fl := range own {
		if ln.w+1+fl.width() > width {
			break
		}
		ln.Add(" ", Ink{}).Add(fl.Text, fl.Ink)
	}
	for len(spill) > 0 && ln.w+1+spill[0].width() <= width {
		ln.Add(" ", Ink{}).Add(spill[0].Text, spill[0].Ink)
		spill = spill[1:]
	}
	return spill
}
