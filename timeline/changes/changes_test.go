package changes

import (
	"fmt"
	"testing"
)

func TestLogAt(t *testing.T) {
	var l Log[int]
	if got := l.At(5); got != nil {
		t.Fatalf("an empty log says %v", got)
	}
	buf := []int{1, 2}
	l.Add(10, buf)
	buf[0] = 9 // the caller's slice is its own again
	l.Add(15, []int{1, 2})
	l.Add(20, nil) // no reading: the last holds
	l.Add(30, []int{})
	l.Add(40, []int{3})
	if l.Len() != 3 {
		t.Errorf("%d changes kept, want 3 (a repeat and a nil are not changes)", l.Len())
	}
	for _, c := range []struct {
		at   int64
		want string
		none bool
	}{
		{9, "[]", true}, {10, "[1 2]", false}, {25, "[1 2]", false}, {30, "[]", false}, {35, "[]", false}, {99, "[3]", false},
	} {
		got := l.At(c.at)
		if fmt.Sprint(got) != c.want || (got == nil) != c.none {
			t.Errorf("At(%d) = %v (nil %v), want %s (nil %v)", c.at, got, got == nil, c.want, c.none)
		}
	}
}

// A log that changes without end keeps its newest changes, within bounds.
func TestLogBounded(t *testing.T) {
	var l Log[int]
	for i := range 3 * MaxChanges {
		l.Add(int64(i), []int{i})
	}
	if l.Len() > MaxChanges {
		t.Fatalf("%d changes kept, bound %d", l.Len(), MaxChanges)
	}
	last := int64(3*MaxChanges - 1)
	if got := l.At(last); len(got) != 1 || got[0] != int(last) {
		t.Errorf("the newest change is lost: %v", got)
	}
}

// Len is how many changes the log holds.
func (l *Log[T]) Len() int { return len(l.at) }
