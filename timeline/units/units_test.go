package units

import (
	"math"
	"testing"
	"time"
)

func TestFormats(t *testing.T) {
	nan := math.NaN()
	for _, tt := range []struct{ got, want string }{
		{GPUs(nil), "host"},
		{GPUs([]int{3}), "GPU3"},
		{GPUs([]int{0, 1}), "GPU0-1"},
		{GPUs([]int{1, 2, 3, 4, 5, 6, 7}), "GPU1-7"},
		{GPUs([]int{0, 2, 3, 4, 5, 6, 7}), "GPU0,2-7"},
		{GPUs([]int{0, 1, 2, 3, 5, 9}), "GPU0-3,5,9"},

		{Duration(0), "0s"},
		{Duration(250 * time.Millisecond), "250ms"},
		{Duration(4500 * time.Millisecond), "4.5s"},
		{Duration(4 * time.Second), "4s"},
		{Duration(9960 * time.Millisecond), "10s"},
		{Duration(45 * time.Second), "45s"},
		{Duration(9*time.Minute + 30*time.Second), "9m30s"},
		{Duration(12 * time.Minute), "12m"},
		{Duration(754 * time.Second), "13m"},
		{Duration(59600 * time.Millisecond), "1m"},
		{Duration(600 * time.Second), "10m"},
		{Duration(3590 * time.Second), "1h"},
		{Duration(10491 * time.Second), "2h55m"},
		{Duration(2*time.Hour + 54*time.Minute + 10*time.Second), "2h54m"},
		{Duration(3 * time.Hour), "3h"},
		{Duration(76 * time.Hour), "3d04h"},
		{Duration(-90 * time.Second), "-1m30s"},

		{Number(97.4), "97"}, {Number(0.54), "0.5"}, {Number(2), "2"}, {Number(nan), NA},
		{Range(0, 2.4, "%"), "0-2.4%"}, {Range(3.02, 2.98, " stalls"), "3 stalls"},
		{Percent(97.4), "97%"}, {Percent(0.5), "0.5%"}, {Percent(nan), NA},
		{Share(0.002), "<1%"}, {Share(0.9991), ">99%"}, {Share(0.42), "42%"}, {Share(1), "100%"}, {Share(0), "0%"},

		{Bytes(0), "0B"}, {Bytes(512 << 20), "512MiB"}, {Bytes(65.6 * (1 << 30)), "65.6GiB"},
		{Bytes(80 << 30), "80.0GiB"}, {Bytes(2000 << 30), "1.95TiB"}, {Bytes(nan), NA},
		{BytesOf(65.6*(1<<30), 80*(1<<30)), "65.6/80.0GiB"},
		{BytesOf(41.5*(1<<30), 79.6*(1<<30)), "41.5/79.6GiB"},
		{BytesOf(210<<20, 2000<<30), "210MiB/1.95TiB"},
		{BytesOf(nan, 80<<30), "N/A/80.0GiB"}, {BytesOf(12<<30, nan), "12.0GiB"},
		{Rate(1.2e9), "1.20GB/s"}, {Rate(500e6), "500MB/s"}, {Rate(45.3e3), "45.3kB/s"}, {Rate(12), "12B/s"},

		{Watts(629.6), "630W"}, {WattsOf(629.6, 700), "630/700W"}, {WattsOf(304, nan), "304W"}, {Watts(nan), NA},
		{Energy(754), "754J"}, {Energy(1234), "1.2kJ"}, {Energy(3.5e6), "3.50MJ"},
		{Celsius(65, false), "65°C"}, {Celsius(65, true), "65C"}, {MHz(1980), "1980MHz"},

		{Count(1, "sample"), "1 sample"}, {Count(0, "sample"), "0 samples"}, {Count(3, "GPU"), "3 GPUs"},
		{Count(2, "process", "processes"), "2 processes"},
	} {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

func TestClockRoundsBeforeTheSign(t *testing.T) {
	for d, want := range map[time.Duration]string{
		-300 * time.Millisecond: "0:00:00",
		-700 * time.Millisecond: "-0:00:01",
		0:                       "0:00:00",
		90*time.Minute + 29*time.Second + 600*time.Millisecond: "1:30:30",
		-(2*time.Hour + 5*time.Second):                         "-2:00:05",
	} {
		if got := Clock(d); got != want {
			t.Errorf("Clock(%v) = %q, want %q", d, got, want)
		}
	}
}
