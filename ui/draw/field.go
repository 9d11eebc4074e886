package draw

// Field is one number beside the sparklines. Each belongs to a row (power
// limit, temperature and throttling beside the power sparkline); a field
// whose row is not on screen spills into the first rows with room.
type Field struct {
	Text string
	Ink  func(*Theme) Ink
}

func (f Field) width() int { return len([]rune(f.Text)) }

func (f Field) paint(l *Line, t *Theme) {
	k := Ink{}
	if f.Ink != nil {
		k = f.Ink(t)
	}
	l.Add(f.Text, k)
}

// DimInk is a field's ink from the theme: dimmed.
func DimInk(t *Theme) Ink { return t.Dim }

// WarnInk is a field's ink from the theme: a warning.
func WarnInk(t *Theme) Ink { return t.Warn }

// CritInk is a field's ink from the theme: critical.
func CritInk(t *Theme) Ink { return t.Crit }

// MemInk is a field's ink from the theme: memory.
func MemInk(t *Theme) Ink { return t.Mem }

// PowerInk is a field's ink from the theme: power.
func PowerInk(t *Theme) Ink { return t.Power }

// TempInk is a field's ink from the theme: temperature.
func TempInk(t *Theme) Ink { return t.Temp }

// SMInk is a field's ink from the theme: SM activity.
func SMInk(t *Theme) Ink { return t.SM }

// UtilInk is a field's ink from the theme: utilisation.
func UtilInk(t *Theme) Ink { return t.Util }

// FillRow adds a row's own fields, then as many spilled ones (fields whose
// row is not on screen) as fit; it returns the spill that is left.
func FillRow(ln *Line, t *Theme, own, spill []Field, width int) []Field {
	for _, fl := range own {
		if ln.w+1+fl.width() > width {
			break
		}
		ln.Add(" ", Ink{})
		fl.paint(ln, t)
	}
	for len(spill) > 0 && ln.w+1+spill[0].width() <= width {
		ln.Add(" ", Ink{})
		spill[0].paint(ln, t)
		spill = spill[1:]
	}
	return spill
}
