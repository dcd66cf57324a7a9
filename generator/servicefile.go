package generator

// ReadFile reads rel inside DIR as gsgen reads its own files there: a
// regular file of at most max bytes, never through a symbolic link, never a
// FIFO or a device; exists is false when there is nothing at rel. Every
// refusal is an *InputError naming the path.
func (d *ServiceDir) ReadFile(rel string, max int64) (content []byte, exists bool, err error) {
	f, err := d.readAtMost(rel, max)
	return f.content, f.exists, err
}

// ReplaceFile writes content to rel, a file of the user's that gsgen keeps
// (a lab's marker), through the journal: in one step, completed or undone by
// the next run after a crash, under the run's lock, never through a link.
// onDisk is what rel held when it was read: a file changed meanwhile is not
// overwritten.
func (d *ServiceDir) ReplaceFile(rel string, onDisk, content []byte) error {
	return d.Apply(Changes{{RenderedFile: RenderedFile{PlannedFile: PlannedFile{Path: rel, Owner: OwnedByUser}, Content: content},
		Action: Overwrite, onDisk: onDisk, compared: true}})
}
