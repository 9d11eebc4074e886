package main

import (
	"context"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gputop-dev/gputop/timeline/timelinetest"
)

// chromium runs Debian's headless Chromium on a page with a profile of the
// test's own, no network (a proxy that answers nothing, and the page's own
// Content-Security-Policy), and a deadline that only guards a hang.
func chromium(t *testing.T, page string, args ...string) (stdout, stderr string) {
	t.Helper()
	bin, err := exec.LookPath("chromium")
	if err != nil {
		timelinetest.Unavailable(t, "chromium is not installed (.ci/run installs it)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	base := []string{"--headless", "--disable-gpu", "--no-sandbox", "--user-data-dir=" + t.TempDir(),
		"--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>", "--no-first-run", "--disable-extensions",
		"--disable-background-networking", "--disable-sync", "--enable-logging=stderr", "--v=0"}
	cmd := exec.CommandContext(ctx, bin, append(append(base, args...), "file://"+page)...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, errOut.String())
	}
	return out.String(), errOut.String()
}

// The HTML report in a real browser: it renders, its console says no
// error (no script, nothing refused by its Content-Security-Policy), and a
// screenshot at 1280x800 is not blank.
func TestHTMLReportInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser: skipped with -short")
	}
	ck := recordDemo(t, "checkpoint", "8m")
	page := filepath.Join(t.TempDir(), "ck.html")
	if code, _, errOut := gputop("report", ck, "--format", "html", "-o", page); code != 0 {
		t.Fatalf("report --format html: exit %d\n%s", code, errOut)
	}
	dom, log := chromium(t, page, "--dump-dom")
	for _, want := range []string{"<h2>Hints</h2>", "<svg", "periodic-stall", "<h2>GPUs</h2>"} {
		if !strings.Contains(dom, want) {
			t.Errorf("the rendered page lacks %q", want)
		}
	}
	shot := filepath.Join(t.TempDir(), "ck.png")
	_, log2 := chromium(t, page, "--screenshot="+shot, "--window-size=1280,800", "--hide-scrollbars")
	for _, line := range strings.Split(log+log2, "\n") {
		if strings.Contains(line, "CONSOLE") || strings.Contains(line, "Uncaught") || strings.Contains(line, "Refused to") {
			t.Errorf("the console says: %s", line)
		}
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("the screenshot: %v", err)
	}
	b := img.Bounds()
	if b.Dx() != 1280 || b.Dy() != 800 {
		t.Errorf("the screenshot is %dx%d, want 1280x800", b.Dx(), b.Dy())
	}
	colours := map[[4]uint32]int{}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, a := img.At(x, y).RGBA()
			colours[[4]uint32{r, g, bl, a}]++
		}
	}
	bg, most := 0, [4]uint32{}
	for c, n := range colours {
		if n > bg {
			bg, most = n, c
		}
	}
	drawn := b.Dx()*b.Dy() - bg
	if len(colours) < 16 || drawn < b.Dx()*b.Dy()/50 {
		t.Errorf("the screenshot looks blank: %d colours, %d pixels off the background %v", len(colours), drawn, most)
	}
}
