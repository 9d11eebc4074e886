package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gputop-dev/gputop/recordings"
)

// checkNewFile refuses to overwrite a file unless told to, before anything
// starts, so the refusal is the one line a person sees.
func checkNewFile(path string, force bool) error {
	st, err := os.Stat(path) // through a link: --force writes its target
	switch {
	case err == nil && st.IsDir():
		return fmt.Errorf("%s is a directory; give a file name, such as %s", path, filepath.Join(path, "run.gtr"))
	case err == nil && !force:
		return fmt.Errorf("%s exists; use --force to overwrite it", path)
	case err == nil && !st.Mode().IsRegular():
		// --force replaces a regular file's content; a device node, a pipe
		// or a socket is not gputop's to overwrite (nor, when the write
		// fails, to remove: `record -o /dev/full --force` once deleted it).
		return fmt.Errorf("%s is %s; --force overwrites only those", path, recordings.NotRegular(st))
	case errors.Is(err, os.ErrNotExist):
		if _, lerr := os.Lstat(path); lerr == nil {
			// A link to nothing: followed, it would make a file elsewhere;
			// replaced, the link would be lost.
			return fmt.Errorf("%s is a link to a file that does not exist; give the file's own path", path)
		}
	}
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fmt.Errorf("cannot write %s: no directory %s", path, dir)
	}
	return nil
}
