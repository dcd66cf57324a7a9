package servicedir

import "bytes"

// ReadFile reads rel inside DIR as gsgen reads its own files there: a
// regular file of at most max bytes, never through a symbolic link, never a
// FIFO or a device; exists is false when there is nothing at rel. Every
// refusal is an *InputError naming the path.
func (d *ServiceDir) ReadFile(rel string, max int64) (content []byte, exists bool, err error) {
	f, err := d.ReadAtMost(rel, max)
	return f.Content, f.Exists, err
}

// ReplaceFile writes content to rel, a file of the user's that gsgen keeps
// (a lab's marker), through the journal: in one step, completed or undone by
// the next run after a crash, under the run's lock, never through a link.
// onDisk is what rel held when it was read: a file changed meanwhile is not
// overwritten.
func (d *ServiceDir) ReplaceFile(rel string, onDisk, content []byte) error {
	return d.Apply(Changes{{File: File{Path: rel, Owner: OwnedByUser, Content: content},
		Action: Overwrite, OnDisk: onDisk, Compared: true}})
}

// Restore gives each of files the bytes it has in files, in one journaled
// write as Apply makes it: a file missing is created, one that differs is
// overwritten (unless it changed after it was read), one that is already
// right is not touched, and nothing else in DIR is. It returns the paths it
// wrote. A lab's reset uses it: what a participant changed goes back to the
// planted state.
func (d *ServiceDir) Restore(files []File) ([]string, error) {
	var cs Changes
	var paths []string
	for _, f := range files {
		now, err := d.Read(f.Path)
		if err != nil {
			return nil, err
		}
		c := Change{File: f, Action: Create}
		if now.Exists {
			if bytes.Equal(now.Content, f.Content) {
				continue
			}
			c.Action, c.OnDisk, c.Compared = Overwrite, now.Content, true
		}
		cs = append(cs, c)
		paths = append(paths, f.Path)
	}
	return paths, d.Apply(cs)
}
