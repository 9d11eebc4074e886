package timeline

import (
	"testing"
	"time"
)

// The store keeps who held each GPU as the process ticks said it, so a
// cursor anywhere, live or in a replay, reads the owners of its moment.
func TestStoreOwnersAt(t *testing.T) {
	s := NewStore(StoreOptions{})
	pod := []Owner{{GPU: 0, Pod: "train-0", Namespace: "team-a"}}
	at := func(i int) time.Time { return t0.Add(time.Duration(i) * time.Second) }
	for i := range 20 {
		smp := new(Sample{At: at(i)}.WithMetrics([]Metric{g(GPUUtil, "gpu0", 50)}))
		switch {
		case i == 5 || i == 10:
			smp.Owners = pod
		case i == 15:
			smp.Owners = []Owner{} // the pod ended: nothing allocated
		}
		s.Add(smp)
	}
	if got := s.OwnersAt(at(4)); got != nil {
		t.Errorf("owners before the first reading: %v", got)
	}
	if got := s.OwnersAt(at(12)); len(got) != 1 || got[0].Pod != "train-0" {
		t.Errorf("owners at 12s: %v", got)
	}
	if got := s.OwnersAt(at(19)); got == nil || len(got) != 0 {
		t.Errorf("owners after the pod ended: %v (nil %v), want none read", got, got == nil)
	}
}
