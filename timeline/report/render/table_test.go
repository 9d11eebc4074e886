package render

import (
	"strings"
	"testing"
)

func TestRepTableKeepsColumnsApart(t *testing.T) {
	for _, tt := range []struct {
		name string
		cols []repCol
		rows [][]string
		want []string
	}{
		{"cells within their least widths", []repCol{{min: 6}, {min: 5, right: true, gap: 1}},
			[][]string{{"a", "1"}, {"bb", "22"}}, []string{"a          1", "bb        22"}},
		{"a figure wider than its column moves the next one",
			[]repCol{{min: 4}, {min: 9, right: true, gap: 1}, {min: 9, right: true, gap: 1}},
			[][]string{{"x", "0.00989", "245162 it/s"}, {"y", "N/A", "0.454 it/s"}},
			[]string{"x      0.00989 245162 it/s", "y          N/A  0.454 it/s"}},
		{"a gap of 0 asked is 1", []repCol{{min: 3, right: true}, {min: 3, right: true}},
			[][]string{{"N/A", "0.454"}}, []string{"N/A 0.454"}},
		{"missing cells are blank, extra ones dropped", []repCol{{min: 2}, {min: 2, gap: 2}},
			[][]string{{"a"}, {"b", "c", "d"}}, []string{"a", "b   c"}},
		{"runes, not bytes", []repCol{{}, {gap: 1}}, [][]string{{"µs", "x"}, {"abc", "y"}}, []string{"µs  x", "abc y"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tab := newRepTable(tt.cols...)
			for _, r := range tt.rows {
				tab.row(r...)
			}
			got := tab.lines("")
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}
