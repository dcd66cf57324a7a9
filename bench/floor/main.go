// Command floor is the lower bound that `gsgen new` is measured against
// (bench/scaffold.sh): it renders a given number of files from templates
// embedded in the binary and writes them to a new directory, and does
// nothing else — no answers to validate, no sqlc, no gofmt, no staging.
//
//	floor -n 44 DIR
//
// DIR must not exist. The files are spread over subdirectories, four to a
// directory, as a generated service spreads its files over packages.
package main

import (
	"bytes"
	"embed"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/template"
)

//go:embed templates/*.tmpl
var templateFS embed.FS

// filesPerDir is how many files share a directory.
const filesPerDir = 4

// file is what each template renders with.
type file struct {
	Service string
	Index   int
}

func main() {
	n := flag.Int("n", 44, "number of files to write")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: floor [-n files] DIR")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 || *n < 1 {
		flag.Usage()
		os.Exit(2)
	}
	if err := render(flag.Arg(0), *n); err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
}

// render parses the embedded templates once and writes n files under dir,
// taking the templates in turn.
func render(dir string, n int) error {
	if _, err := os.Stat(dir); err == nil {
		return fmt.Errorf("%s already exists", dir)
	}
	tmpl, err := template.ParseFS(templateFS, "templates/*.tmpl")
	if err != nil {
		return err
	}
	all := tmpl.Templates()
	var buf bytes.Buffer
	for i := range n {
		t := all[i%len(all)]
		buf.Reset()
		if err := t.Execute(&buf, file{Service: "orders", Index: i}); err != nil {
			return err
		}
		sub := filepath.Join(dir, fmt.Sprintf("pkg%02d", i/filesPerDir))
		if i%filesPerDir == 0 {
			if err := os.MkdirAll(sub, 0o755); err != nil {
				return err
			}
		}
		name := fmt.Sprintf("file%02d.%s", i, strings.TrimSuffix(t.Name(), ".tmpl"))
		if err := os.WriteFile(filepath.Join(sub, name), buf.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}
