package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gputop-dev/gputop/recordings"
	"github.com/gputop-dev/gputop/timeline"
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

// reserveTemp creates the empty temporary file a recording of path is
// written to before it is renamed into place.
func reserveTemp(path string) (string, error) {
	tmp := fmt.Sprintf("%s.tmp-%d", recordings.LinkTarget(path), os.Getpid())
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return "", fmt.Errorf("cannot create %s: %v", path, errors.Unwrap(err))
	}
	return tmp, f.Close()
}

// writeEach writes a whole recording to tmp (from reserveTemp) and renames
// it to path, so a failed import leaves no partial file behind. each calls
// write with every sample in order, made one at a time.
func writeEach(tmp, path string, h recordings.Header, each func(write func(*timeline.Sample) error) error) error {
	w, err := recordings.Create(tmp, h, true)
	if err != nil {
		os.Remove(tmp)
		return err
	}
	err = each(w.Write)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, recordings.LinkTarget(path))
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}
