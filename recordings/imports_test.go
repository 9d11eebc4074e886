package recordings

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The package may import the standard library, timeline, units, its own
// format and zstd only (docs/architecture.md): never probes, ui or a
// terminal library.
func TestImportsStayInBounds(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	allowed := map[string]bool{
		"github.com/gputop-dev/gputop/timeline":          true,
		"github.com/gputop-dev/gputop/timeline/units":    true,
		"github.com/gputop-dev/gputop/recordings/format": true,
		"github.com/klauspost/compress/zstd":             true,
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				t.Fatal(err)
			}
			first, _, _ := strings.Cut(path, "/")
			if !allowed[path] && strings.Contains(first, ".") {
				t.Errorf("%s imports %s: recordings imports timeline, units, recordings/format, zstd and the standard library only", name, path)
			}
		}
	}
}
