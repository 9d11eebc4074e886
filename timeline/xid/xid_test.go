package xid

import "testing"

func TestMarkerText(t *testing.T) {
	for _, tc := range []struct {
		gpu, code int
		want      string
	}{
		{3, 79, "GPU3 Xid 79: GPU has fallen off the bus"},
		{0, 48, "GPU0 Xid 48: Double Bit ECC Error"},
		{12, 119, "GPU12 Xid 119"}, // not in the catalogue: by number only
	} {
		got := MarkerText(tc.gpu, tc.code)
		if got != tc.want {
			t.Errorf("MarkerText(%d, %d) = %q, want %q", tc.gpu, tc.code, got, tc.want)
		}
		g, c, ok := ParseMarker(got)
		if !ok || g != tc.gpu || c != tc.code {
			t.Errorf("ParseMarker(%q) = %d, %d, %v", got, g, c, ok)
		}
	}
}

func TestParseMarkerRejects(t *testing.T) {
	for _, s := range []string{"", "GPU", "GPU3", "GPU3 Xid ", "GPU03 Xid 79", "GPU3 Xid 079", "GPU-1 Xid 79",
		"gpu3 Xid 79", "GPU3 Xid 79x", "GPU3 Xid 9999999", "validation 3", "GPU3  Xid 79"} {
		if g, c, ok := ParseMarker(s); ok {
			t.Errorf("ParseMarker(%q) = %d, %d, true", s, g, c)
		}
	}
}

func TestXidCatalogueCoversTheCommonOnes(t *testing.T) {
	for _, code := range []int{13, 31, 43, 48, 63, 64, 74, 79, 92, 94, 95} {
		if x, ok := Lookup(code); !ok || x.Meaning == "" {
			t.Errorf("Xid %d: %+v, %v", code, x, ok)
		}
	}
}

// Marker texts come from recordings: any text at all.
func FuzzParseMarker(f *testing.F) {
	for _, s := range []string{"GPU3 Xid 79: GPU has fallen off the bus", "GPU0 Xid 13", "GPU1 Xid :", "GPU Xid 1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		g, c, ok := ParseMarker(s)
		if !ok {
			return
		}
		if g < 0 || c < 0 {
			t.Fatalf("negative %d %d", g, c)
		}
		// What parses names its GPU and code the way MarkerText does.
		again, _, _ := ParseMarker(MarkerText(g, c))
		if again != g {
			t.Fatalf("round trip %q", s)
		}
	})
}
