// Command floor is the lower bound that `gsgen new` is measured against
// (bench/scaffold.sh): it writes the very files gsgen wrote, byte for byte,
// to a new directory, and does nothing else — no answers to validate, no
// templates, no gofmt, no lock file or base to compute, no staging.
//
//	floor TREE.tar DIR
//
// TREE.tar is a tar of a directory `gsgen new` wrote (scaffold.sh makes it
// once, before timing); floor reads it in one read and writes each of its
// directories and files under DIR with the same paths, bytes and modes.
// DIR must not exist.
package main

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: floor TREE.tar DIR")
		os.Exit(2)
	}
	if err := write(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
}

// write puts every entry of the tar named archive under dir.
func write(archive, dir string) error {
	if _, err := os.Stat(dir); err == nil {
		return fmt.Errorf("%s already exists", dir)
	}
	data, err := os.ReadFile(archive)
	if err != nil {
		return err
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		return err
	}
	tr := tar.NewReader(bytes.NewReader(data))
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		p := filepath.Join(dir, filepath.FromSlash(h.Name))
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(p, h.FileInfo().Mode().Perm()); err != nil {
				return err
			}
		case tar.TypeReg:
			content := make([]byte, h.Size)
			if _, err := io.ReadFull(tr, content); err != nil {
				return err
			}
			if err := os.WriteFile(p, content, h.FileInfo().Mode().Perm()); err != nil {
				return err
			}
		default:
			return fmt.Errorf("%s: only directories and regular files are written", h.Name)
		}
	}
}
