package export

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline"
)

// The job's progress readings are rows of their own (device progress), at
// their own times, before the sample's devices.
func TestExportProgressRows(t *testing.T) {
	start := time.Unix(1_700_000_000, 0)
	s := timeline.Sample{At: start.Add(2 * time.Second), Progress: []timeline.Progress{
		{At: start.Add(1500 * time.Millisecond), Done: 1200, Rate: 49.5, Unit: "it", Origin: "job"},
		{At: start.Add(1900 * time.Millisecond), Done: math.NaN(), Rate: 45000, Unit: "token", Origin: "mark"},
	}}
	tbl := newExportTable(start)
	rows := tbl.rows(&s, nil, nil, timeline.SourceInfo{})
	if len(rows) != 2 {
		t.Fatalf("%d rows, want 2", len(rows))
	}
	var got []string
	for _, r := range rows {
		var cells []string
		for _, col := range []int{colElapsed, colDevice, colProgressDone, colProgressRate, colProgressUnit} {
			b, known, applies := appendCell(nil, r, col)
			if !applies {
				t.Fatalf("column %s does not apply to a progress row", columnDefs[col].name)
			}
			if !known {
				b = []byte("-")
			}
			cells = append(cells, string(b))
		}
		got = append(got, strings.Join(cells, ","))
	}
	want := "1.5,progress,1200,49.5,it 1.9,progress,-,45000,token"
	if strings.Join(got, " ") != want {
		t.Errorf("rows %q, want %q", strings.Join(got, " "), want)
	}
}
