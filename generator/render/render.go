package render

import (
	"bytes"
	"fmt"
	"go/format"
	"io/fs"
	"path"
	"runtime"
	"slices"
	"strings"
	"sync"
	"text/template"
	"time"

	"github.com/gsgen-dev/gsgen/generator/internal/golit"
	"github.com/gsgen-dev/gsgen/generator/internal/inorder"
	"github.com/gsgen-dev/gsgen/generator/model"
	"github.com/gsgen-dev/gsgen/generator/problem"
	"github.com/gsgen-dev/gsgen/generator/servicedir"
	"github.com/gsgen-dev/gsgen/templates"
)

// Data is what every template executes with: the model, and for a
// per-instance file the instance it renders.
type Data struct {
	*model.Model
	Item      any
	UserFiles []string // paths of the files the user owns, for the service README
}

// RenderedFile is a planned file with its final bytes.
type RenderedFile struct {
	PlannedFile
	Content []byte
}

// Rendered is the whole service in memory, in plan order.
type Rendered []RenderedFile

// File is f as the service's directory takes it.
func (f RenderedFile) File() servicedir.File {
	return servicedir.File{Path: f.Path, Owner: f.Owner, Content: f.Content, Merge: f.Merge}
}

// Files is the service as its directory takes it, in plan order.
func (r Rendered) Files() []servicedir.File {
	out := make([]servicedir.File, len(r))
	for i, f := range r {
		out[i] = f.File()
	}
	return out
}

// GeneratedMarker is the text Go tools and code review recognise as
// "generated, do not edit".
const GeneratedMarker = servicedir.GeneratedMarker

// parsed holds every template, parsed once per process with one FuncMap.
var parsed = sync.OnceValues(func() (*template.Template, error) { return parseTemplates(templates.FS) })

// templateFuncs are the functions the templates call.
var templateFuncs = template.FuncMap{
	"goDuration": GoDuration,
	// goDurationArg is GoDuration as gofmt writes it among a call's
	// arguments: 20*time.Second.
	"goDurationArg": func(d time.Duration) string { return strings.ReplaceAll(GoDuration(d), " * ", "*") },
	"goStrings":     GoStrings,
	"seconds":       problem.Seconds,
	"lowerFirst":    lowerFirst,
	// demoFills reports whether the demo puts rows in the table of any
	// of the cleaners (it knows the columns of gsgen's tables only).
	"demoFills": func(cs []model.CleanerJob) bool {
		return slices.ContainsFunc(cs, func(c model.CleanerJob) bool { return c.TestInsert != "" })
	},
	"byQueryName": func(cs []model.CleanerJob) []model.CleanerJob {
		// sqlc writes a file's queries sorted by name.
		return slices.SortedFunc(slices.Values(cs), func(a, b model.CleanerJob) int { return strings.Compare(a.QueryName, b.QueryName) })
	},
}

// parseTemplates parses every template file of fsys, a worker per CPU: parsing
// them one after the other took longer than executing the ones a service
// needs. Each file is parsed on its own, then its trees (the file's own and
// those it defines) join one set in the files' order, as parsing them into
// that set one after the other would have added them; a reference to a
// template of another file is resolved when it executes, so no file needs
// another to parse. The error reported is the first file's that does not
// parse, in the files' order.
func parseTemplates(fsys fs.FS) (*template.Template, error) {
	var paths []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".tmpl") {
			paths = append(paths, p)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	parsedFiles := make([]*template.Template, len(paths))
	err = inorder.Each(len(paths), renderWorkers, func(i int) error {
		b, err := fs.ReadFile(fsys, paths[i])
		if err == nil {
			parsedFiles[i], err = template.New(paths[i]).Funcs(templateFuncs).Parse(string(b))
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	root := template.New("").Option("missingkey=error").Funcs(templateFuncs)
	for _, f := range parsedFiles {
		for _, t := range f.Templates() {
			if _, err := root.AddParseTree(t.Name(), t.Tree); err != nil {
				return nil, err
			}
		}
	}
	return root, nil
}

// templateFiles lists the template files under templates/<dir>, sorted.
func templateFiles(dir string) ([]string, error) {
	var out []string
	err := fs.WalkDir(templates.FS, dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".tmpl") {
			out = append(out, p)
		}
		return err
	})
	return out, err
}

// Render produces every planned file in memory. Nothing touches the disk.
func Render(m *model.Model, plan FilePlan) (Rendered, error) {
	return render(m, plan, func(PlannedFile) bool { return true })
}

// render produces the planned files that only accepts, in plan order; the
// templates still see the whole plan (the user's files it lists).
func render(m *model.Model, plan FilePlan, only func(PlannedFile) bool) (Rendered, error) {
	root, err := parsed()
	if err != nil {
		return nil, fmt.Errorf("parsing templates: %w", err)
	}
	var userFiles []string
	for _, f := range plan {
		if f.Owner == OwnedByUser {
			userFiles = append(userFiles, f.Path)
		}
	}
	plan = slices.DeleteFunc(slices.Clone(plan), func(f PlannedFile) bool { return !only(f) })
	// Files render side by side: gofmt of each Go file is most of the work,
	// and no file depends on another. Results keep the plan's order, and the
	// error reported is the first in that order, so output and messages are
	// the same bytes on every run.
	out := make(Rendered, len(plan))
	err = inorder.Each(len(plan), renderWorkers, func(i int) (err error) {
		out[i], err = renderFile(root, m, plan[i], userFiles)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// renderWorkers is how many files Render renders at once.
var renderWorkers = runtime.GOMAXPROCS(0)

// renderFile renders one planned file: its template or builder, the
// generated-code marker, and gofmt for the Go templates that need it.
func renderFile(root *template.Template, m *model.Model, f PlannedFile, userFiles []string) (RenderedFile, error) {
	body, err := renderRaw(root, m, f, userFiles)
	if err != nil {
		return RenderedFile{}, err
	}
	if _, ok := formattedAtRunTime[f.Template]; ok && f.ext() == ".go" {
		formatted, err := format.Source(body)
		if err != nil {
			return RenderedFile{}, fmt.Errorf("formatting %s (a template bug): %w", f.Path, err)
		}
		body = formatted
	}
	return RenderedFile{PlannedFile: f, Content: body}, nil
}

// renderRaw is a planned file's bytes before any gofmt: its template or
// builder, and the generated-code marker.
func renderRaw(root *template.Template, m *model.Model, f PlannedFile, userFiles []string) ([]byte, error) {
	var body []byte
	var err error
	if f.Build != nil {
		body, err = f.Build(m)
	} else {
		var buf bytes.Buffer
		err = root.ExecuteTemplate(&buf, f.Template, Data{Model: m, Item: f.Item, UserFiles: userFiles})
		body = buf.Bytes()
	}
	if err != nil {
		return nil, fmt.Errorf("rendering %s: %w", f.Path, err)
	}
	if f.Owner == OwnedByGsgen && !f.NoMarker {
		body = addMarker(f.Path, body)
	}
	return body, nil
}

// formattedAtRunTime lists the Go templates whose output renderFile still
// passes through go/format.Source, each with why. Every other Go template
// renders gofmt-clean as it stands, for every accepted shape and for names
// and values of the user's: TestRuntimeFormattedTemplates proves it, and
// fails when a template off this list renders unclean or one on it has
// become clean. gofmt was most of the CPU of gsgen new.
var formattedAtRunTime = map[string]string{
	// Names of the user's in aligned columns: gofmt pads a column to its
	// longest entry, so no fixed whitespace is right for every name.
	"asynq/internal/tasks/server.go.tmpl":          "the queue names, keys of the queue-priority map",
	"base/internal/config/config.go.tmpl":          "the consumers', cleaners' and workers' names, in Config's and load's aligned fields",
	"base/internal/config/config_test.go.tmpl":     "the consumers' and cleaners' env keys, in a table whose comments gofmt aligns",
	"tracing-hops/cmd/_name_/tracing_test.go.tmpl": "the consumers' names, in the env keys of a map literal",
	// The module path in a one-line function: past gofmt's line limit a
	// long path makes it break the body onto lines of its own.
	"tracing-asynq/internal/tasks/trace.go.tmpl":    "the module path, in the tracer's one-line function",
	"tracing-outbox/internal/outbox/insert.go.tmpl": "the module path, in the tracer's one-line function",
}

// addMarker puts the generated-code marker on body: first, except in sqlc
// query files, where sqlc would copy a leading comment into the first
// query's Go doc comment, so it goes last.
func addMarker(p string, body []byte) []byte {
	if strings.HasPrefix(p, "db/queries/") {
		return append(body, "\n-- "+GeneratedMarker+"\n"...)
	}
	return append(markerLine(p), body...)
}

// markerLine is the generated-code marker in the comment syntax of p.
func markerLine(p string) []byte {
	switch path.Ext(p) {
	case ".go":
		return []byte("// " + GeneratedMarker + "\n\n")
	case ".md":
		return []byte("<!-- " + GeneratedMarker + " -->\n\n")
	case ".sql":
		return []byte("-- " + GeneratedMarker + "\n\n")
	default: // Makefile, Dockerfile, YAML, ignore files
		return []byte("# " + GeneratedMarker + "\n")
	}
}

// GoDuration writes d as a Go expression: 25 * time.Second, 500 * time.Millisecond.
func GoDuration(d time.Duration) string { return golit.Duration(d) }

// GoStrings writes ss as the elements of a Go string slice literal:
// "a", "b".
func GoStrings(ss []string) string { return golit.Strings(ss) }

// lowerFirst is s with its first letter in lower case, as sqlc names the
// constant that holds a query's text.
func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}
