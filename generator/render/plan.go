package render

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/gsgen-dev/gsgen/generator/answers"
	"github.com/gsgen-dev/gsgen/generator/model"
	"github.com/gsgen-dev/gsgen/generator/problem"
	"github.com/gsgen-dev/gsgen/generator/servicedir"
)

// Owner and its values live in servicedir, which records them in gsgen.lock.
// These aliases keep generator's callers compiling while the split lands.
type Owner = servicedir.Owner

const (
	OwnedByGsgen = servicedir.OwnedByGsgen
	OwnedByUser  = servicedir.OwnedByUser
)

// PlannedFile is one file of the service: where it goes, who owns it, and
// where its bytes come from (a template, or a builder for the few files that
// are not templates: go.mod, go.sum, gsgen.yaml).
type PlannedFile struct {
	Path     string // slash-separated, relative to the service root
	Owner    Owner
	Template string // path in templates.FS; empty when Build is set
	Item     any    // the named instance a per-instance template renders
	Build    func(*model.Model) ([]byte, error)
	NoMarker bool // the format has no comment syntax gsgen may use (go.mod, go.sum)
	// Merge, when set, makes the file shared: an existing file is merged
	// with the rendered one (go.mod keeps the user's own requirements)
	// instead of being owned outright.
	Merge func(onDisk, rendered []byte) ([]byte, error)
}

// FilePlan is every file of the service, sorted by path.
type FilePlan []PlannedFile

// Plan decides which files the model's service has and who owns each.
// Files under a kind's template folders are planned when the kind is on; a
// template named *.user.tmpl gives a file the user owns.
func Plan(m *model.Model) (FilePlan, error) {
	var p FilePlan
	for _, d := range templateDirs(m) {
		tmpls, err := templateFiles(d.dir)
		if err != nil {
			return nil, err
		}
		for _, t := range tmpls {
			if strings.HasSuffix(t, blocksSuffix) {
				continue // named blocks another template places, not a file of the service
			}
			p = append(p, plannedFromTemplate(m, d.dir, t, d.items)...)
		}
	}
	p = append(p,
		PlannedFile{Path: "go.mod", Owner: OwnedByGsgen, Build: buildGoMod, NoMarker: true, Merge: mergeGoMod},
		PlannedFile{Path: "go.sum", Owner: OwnedByGsgen, Build: buildGoSum, NoMarker: true, Merge: mergeGoSum},
		PlannedFile{Path: answers.AnswersFile, Owner: OwnedByGsgen, Build: buildAnswersFile, NoMarker: true},
		// Built in Go, not templated: JSON has no comments to hold the marker
		// (its description says it), and the rules' {{ $labels }} would clash
		// with text/template.
		PlannedFile{Path: "deploy/monitoring/dashboard.json", Owner: OwnedByGsgen, Build: buildDashboard, NoMarker: true},
		PlannedFile{Path: "deploy/monitoring/prometheusrule.yaml", Owner: OwnedByGsgen, Build: buildRules, NoMarker: true},
	)
	slices.SortFunc(p, func(a, b PlannedFile) int { return strings.Compare(a.Path, b.Path) })
	for i := 1; i < len(p); i++ {
		if p[i].Path == p[i-1].Path {
			return nil, &problem.InputError{Field: p[i].Path, Msg: fmt.Sprintf("both %s and %s give this file", p[i-1].source(), p[i].source()), Fix: "rename one of them"}
		}
	}
	return p, nil
}

// source is what a planned file comes from, for a message: a named
// instance, or one of gsgen's templates.
func (f PlannedFile) source() string {
	if it, ok := f.Item.(Instance); ok {
		return problem.Quote(it.Names().Name)
	}
	return "gsgen's " + f.Template
}

type templateDir struct {
	dir   string     // folder under templates/
	items []Instance // the named instances its _item_ files are rendered for
}

// templateDirs lists the template folders the model's service gets: the
// shared ones, for what its kinds need, then each kind's own.
func templateDirs(m *model.Model) []templateDir {
	shared := []struct {
		dir string
		on  bool
	}{
		{"base", true},
		{"ci", m.CI != nil},
		{"postgres", m.UsesPostgres},
		// The Service, for the kinds a load balancer routes to.
		{"service", m.Serves},
		// The lease table and package of the parts that run once per fleet.
		{"lease", len(m.Leases()) > 0},
		{"kafka-client", m.UsesKafka},
		{"asynq-dedicated", m.AsynqWorker},
		{"tracing", m.Tracing},
		{"tracing-outbox", m.Tracing && m.Outbox},
		{"tracing-asynq", m.Tracing && m.Asynq},
		{"tracing-grpc", m.Tracing && m.GRPC != nil},
		// The test that follows one trace across every hop needs them all.
		{"tracing-hops", m.Tracing && m.HTTP && m.Outbox && m.Kafka},
	}
	var out []templateDir
	for _, d := range shared {
		if d.on {
			out = append(out, templateDir{dir: d.dir})
		}
	}
	for _, k := range m.KindsOn() {
		items := k.InstancesOf(m)
		for _, dir := range k.Dirs {
			out = append(out, templateDir{dir, items})
		}
	}
	return out
}

// userOwnedSuffix marks a template whose file belongs to the user: written
// once, when missing, never overwritten. Ownership is declared by the
// template's own name, beside its content.
const userOwnedSuffix = ".user.tmpl"

// blocksSuffix marks a file of named blocks ({{define "http.start"}}) that
// one of base's templates places where its kind starts and stops: a kind's
// pieces of main.go, config.go and the README live in the kind's folder,
// while the order they are placed in stays written in one file.
const blocksSuffix = ".blocks.tmpl"

// plannedFromTemplate maps templates/<dir>/<rel> to its output path.
func plannedFromTemplate(m *model.Model, dir, tmpl string, items []Instance) []PlannedFile {
	owner := OwnedByGsgen
	rel := strings.TrimPrefix(tmpl, dir+"/")
	if strings.HasSuffix(rel, userOwnedSuffix) {
		owner = OwnedByUser
		rel = strings.TrimSuffix(rel, userOwnedSuffix)
	}
	rel = strings.ReplaceAll(strings.TrimSuffix(rel, ".tmpl"), "_name_", m.Name)
	if !strings.Contains(rel, "_item_") {
		return []PlannedFile{{Path: rel, Owner: owner, Template: tmpl}}
	}
	var out []PlannedFile
	for _, it := range items {
		out = append(out, PlannedFile{Path: strings.ReplaceAll(rel, "_item_", it.Names().File), Owner: owner, Template: tmpl, Item: it})
	}
	return out
}

// Instance is a named instance of a component: model.Instance.
type Instance = model.Instance

func (f PlannedFile) ext() string { return path.Ext(f.Path) }
