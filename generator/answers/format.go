package answers

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/gsgen-dev/gsgen/generator/problem"
)

// AnswersFormat is the format of the gsgen.yaml this gsgen writes, its
// `format:` key. A file without the key is format 0: written before gsgen
// numbered its formats. gsgen upgrade brings an older file to this format
// (answersMigrations); a newer one is refused.
const AnswersFormat = 1

const formatKey = "format"

// answersMigration takes an answers file from one format to the next.
type answersMigration struct {
	why     string      // one line: what the format changed
	renames []keyRename // keys renamed, applied to the YAML before it is read
}

// keyRename renames a key: from is its dotted path of mapping keys, "[]"
// for every item of a list ("kafka[].timeout"); to is its new name.
type keyRename struct{ from, to string }

// answersMigrations[f] takes format f to f+1. No key has been renamed yet:
// format 1 only adds the format key itself.
var answersMigrations = []answersMigration{
	{why: "gsgen.yaml carries its format (format: 1)"},
}

// takeFormat removes the format key from the document's top mapping and
// returns its value: 0 when there is none.
func takeFormat(file string, doc *yaml.Node) (int, error) {
	top := doc
	if top.Kind == yaml.DocumentNode && len(top.Content) == 1 {
		top = top.Content[0]
	}
	if top.Kind != yaml.MappingNode {
		return 0, nil // not a mapping: reading it says why
	}
	for i := 0; i+1 < len(top.Content); i += 2 {
		k, v := top.Content[i], top.Content[i+1]
		if k.Value != formatKey {
			continue
		}
		for j := i + 2; j+1 < len(top.Content); j += 2 {
			if again := top.Content[j]; again.Value == formatKey {
				return 0, &problem.InputError{Field: fmt.Sprintf("%s:%d: %s", file, again.Line, formatKey), Msg: "given twice", Fix: "keep one"}
			}
		}
		var f int
		if v.Kind != yaml.ScalarNode || v.Decode(&f) != nil || f < 1 {
			return 0, &problem.InputError{Field: fmt.Sprintf("%s:%d: %s", file, v.Line, formatKey), Msg: problem.Quote(v.Value) + " is not a format gsgen writes",
				Fix: fmt.Sprintf("this gsgen writes format %d; remove the key to have the file read as one written before formats were numbered", AnswersFormat)}
		}
		if f > AnswersFormat {
			return 0, &problem.InputError{Field: fmt.Sprintf("%s:%d: %s", file, v.Line, formatKey), Msg: fmt.Sprintf("format %d was written by a newer gsgen; this one reads formats up to %d", f, AnswersFormat),
				Fix: "install a newer gsgen (go install github.com/gsgen-dev/gsgen/cmd/gsgen@latest)"}
		}
		top.Content = slices.Delete(top.Content, i, i+2)
		return f, nil
	}
	return 0, nil
}

// MigrateAnswersFile reads an answers file of any format up to
// AnswersFormat, an older one brought to it: its renamed keys renamed, and
// the answers a newer gsgen added filled with their defaults. notes say,
// one line each, what changed; none for a file already current.
func MigrateAnswersFile(name string, data []byte) (a Answers, notes []string, err error) {
	return migrateAnswersFile(name, data, answersMigrations)
}

func migrateAnswersFile(name string, data []byte, migrations []answersMigration) (Answers, []string, error) {
	doc, err := answersDoc(name, data)
	if err != nil {
		return Answers{}, nil, err
	}
	format, err := takeFormat(name, doc)
	if err != nil {
		return Answers{}, nil, err
	}
	var notes []string
	for f := format; f < len(migrations); f++ {
		m := migrations[f]
		notes = append(notes, fmt.Sprintf("format %d to %d: %s", f, f+1, m.why))
		for _, r := range m.renames {
			n, err := renameKey(name, doc.Content[0], strings.Split(r.from, "."), r.to)
			if err != nil {
				return Answers{}, nil, err
			}
			if n > 0 {
				notes = append(notes, fmt.Sprintf("renamed %s to %s", r.from, r.to))
			}
		}
	}
	a, err := decodeAnswers(name, doc)
	if err != nil {
		return Answers{}, nil, err
	}
	if format < AnswersFormat {
		notes = append(notes, newDefaults(a)...)
	}
	return a, notes, nil
}

// renameKey renames the key at path (its last element to to) in every
// mapping the path reaches; it returns how many it renamed.
func renameKey(file string, n *yaml.Node, path []string, to string) (int, error) {
	if len(path) == 0 || n == nil {
		return 0, nil
	}
	seg, list := strings.CutSuffix(path[0], "[]")
	if n.Kind != yaml.MappingNode {
		return 0, nil
	}
	renamed := 0
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Value != seg {
			continue
		}
		switch {
		case len(path) == 1:
			if slices.ContainsFunc(n.Content, func(x *yaml.Node) bool { return x.Value == to && x != v }) {
				return 0, &problem.InputError{Field: fmt.Sprintf("%s:%d: %s", file, k.Line, seg), Msg: fmt.Sprintf("is the old name of %s, and both are given", to), Fix: "keep " + to}
			}
			k.Value = to
			renamed++
		case list && v.Kind == yaml.SequenceNode:
			for _, item := range v.Content {
				r, err := renameKey(file, item, path[1:], to)
				if err != nil {
					return 0, err
				}
				renamed += r
			}
		default:
			r, err := renameKey(file, v, path[1:], to)
			if err != nil {
				return 0, err
			}
			renamed += r
		}
	}
	return renamed, nil
}

// newDefaults lists the answers a file leaves out that WithDefaults fills:
// answers a newer gsgen added, or ones the file never had, as gsgen.yaml
// now records them.
func newDefaults(a Answers) []string {
	before, after := flatAnswers(a), flatAnswers(a.WithDefaults())
	var out []string
	for _, k := range slices.Sorted(maps.Keys(after)) {
		if before[k] != after[k] { // WithDefaults fills only what is not given
			out = append(out, fmt.Sprintf("added %s: %s (the default)", k, after[k]))
		}
	}
	return out
}

// flatAnswers is a as gsgen.yaml writes it, by dotted key.
func flatAnswers(a Answers) map[string]string {
	var n yaml.Node
	if err := n.Encode(a); err != nil {
		return nil // Answers always encodes
	}
	out := map[string]string{}
	var walk func(n *yaml.Node, path string)
	walk = func(n *yaml.Node, path string) {
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				walk(n.Content[i+1], joinPath(path, n.Content[i].Value))
			}
		case yaml.SequenceNode:
			if n.Style&yaml.FlowStyle != 0 || len(n.Content) > 0 && n.Content[0].Kind == yaml.ScalarNode {
				var items []string
				for _, c := range n.Content {
					items = append(items, c.Value)
				}
				out[path] = "[" + strings.Join(items, ", ") + "]"
				return
			}
			for i, c := range n.Content {
				walk(c, fmt.Sprintf("%s[%d]", path, i))
			}
		default:
			out[path] = n.Value
		}
	}
	walk(&n, "")
	return out
}
