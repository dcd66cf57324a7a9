package answers

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/gsgen-dev/gsgen/generator/problem"
	"github.com/gsgen-dev/gsgen/generator/servicedir"
)

// AnswersFile is the name of the answers file in a service: the answers
// it was generated from, which regen, add, remove and plan read.
const AnswersFile = servicedir.AnswersFile

// ParseAnswersFile reads an answers file (the schema of gsgen.yaml) strictly:
// an unknown key, a value of the wrong kind or a duration that does not parse
// is an *problem.InputError naming the file, the line and the key.
// Its format (format.go) may be older than this gsgen's, not newer.
func ParseAnswersFile(name string, data []byte) (Answers, error) {
	doc, err := answersDoc(name, data)
	if err != nil {
		return Answers{}, err
	}
	if _, err := takeFormat(name, doc); err != nil {
		return Answers{}, err
	}
	return decodeAnswers(name, doc)
}

// answersDoc parses data as one YAML document.
func answersDoc(name string, data []byte) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if err == io.EOF {
			return nil, &problem.InputError{Field: name, Msg: "the answers file is empty", Fix: "write at least `name: orders`, or run `gsgen new DIR --yes` to get a gsgen.yaml to start from"}
		}
		return nil, &problem.InputError{Field: name, Msg: "not valid YAML: " + problem.Shorten(strings.TrimPrefix(err.Error(), "yaml: "))}
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err != io.EOF {
		return nil, &problem.InputError{Field: name, Msg: "holds more than one YAML document", Fix: "keep one document (remove the `---` separators)"}
	}
	return &doc, nil
}

// decodeAnswers reads the answers of doc strictly.
func decodeAnswers(name string, doc *yaml.Node) (Answers, error) {
	var a Answers
	d := fileDecoder{file: name}
	if err := d.decode(doc.Content[0], reflect.ValueOf(&a).Elem(), ""); err != nil {
		return Answers{}, err
	}
	return a, nil
}

type fileDecoder struct{ file string }

var durationType = reflect.TypeFor[Duration]()

func (d fileDecoder) fail(n *yaml.Node, path, msg, fix string) error {
	return &problem.InputError{Field: fmt.Sprintf("%s:%d: %s", d.file, n.Line, path), Msg: msg, Fix: fix}
}

// decode fills v from n. path is the dotted key path, for messages.
func (d fileDecoder) decode(n *yaml.Node, v reflect.Value, path string) error {
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	where := path
	if where == "" {
		where = "top level"
	}
	if v.Type() == durationType {
		if n.Kind != yaml.ScalarNode {
			return d.fail(n, where, "expected a duration such as 25s", "")
		}
		dur, err := time.ParseDuration(n.Value)
		if err != nil {
			return d.fail(n, where, problem.Quote(n.Value)+" is not a duration", "write it in Go syntax, e.g. 25s, 1m30s or 500ms")
		}
		if dur <= 0 {
			return d.fail(n, where, fmt.Sprintf("%s must be positive", n.Value), "give a duration greater than zero, or leave the key out to take the default")
		}
		v.SetInt(int64(dur))
		return nil
	}
	switch v.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return d.fail(n, where, "expected a mapping of keys", "")
		}
		fields := yamlFields(v.Type())
		seen := map[string]bool{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, val := n.Content[i], n.Content[i+1]
			key := joinPath(path, problem.Shorten(k.Value))
			idx, ok := fields[k.Value]
			if !ok {
				known := slices.Sorted(maps.Keys(fields))
				fix := "known keys here: " + strings.Join(known, ", ")
				if near := nearest(k.Value, known); near != "" {
					fix = fmt.Sprintf("did you mean %q? %s", near, fix)
				}
				return d.fail(k, key, "unknown key", fix)
			}
			if seen[k.Value] {
				return d.fail(k, key, "given twice", "keep one")
			}
			seen[k.Value] = true
			if err := d.decode(val, v.Field(idx), key); err != nil {
				return err
			}
		}
		return nil
	case reflect.Slice:
		if n.Kind == yaml.ScalarNode && v.Type().Elem().Kind() == reflect.String {
			// `components: http,outbox` is accepted like the flag.
			parts := SplitList(n.Value)
			if len(parts) == 0 {
				return d.fail(n, where, "is empty", "list at least one, or leave the key out to take the default")
			}
			v.Set(reflect.ValueOf(parts))
			return nil
		}
		if n.Kind != yaml.SequenceNode {
			return d.fail(n, where, "expected a list", "")
		}
		if len(n.Content) == 0 {
			return d.fail(n, where, "is empty", "list at least one, or leave the key out to take the default")
		}
		s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
		for i, item := range n.Content {
			if err := d.decode(item, s.Index(i), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		v.Set(s)
		return nil
	case reflect.Map:
		// asynq.queues: name -> priority. Keys are strings, values whatever
		// the map's element is (a positive int).
		if n.Kind != yaml.MappingNode {
			return d.fail(n, where, "expected a mapping of keys", "")
		}
		m := reflect.MakeMapWithSize(v.Type(), len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, val := n.Content[i], n.Content[i+1]
			key := joinPath(path, problem.Shorten(k.Value))
			if m.MapIndex(reflect.ValueOf(k.Value)).IsValid() {
				return d.fail(k, key, "given twice", "keep one")
			}
			elem := reflect.New(v.Type().Elem()).Elem()
			if err := d.decode(val, elem, key); err != nil {
				return err
			}
			m.SetMapIndex(reflect.ValueOf(k.Value), elem)
		}
		v.Set(m)
		return nil
	case reflect.String:
		if n.Kind != yaml.ScalarNode {
			return d.fail(n, where, "expected a single value", "")
		}
		v.SetString(n.Value)
		return nil
	case reflect.Int:
		i, err := strconv.Atoi(n.Value)
		if n.Kind != yaml.ScalarNode || err != nil {
			return d.fail(n, where, problem.Quote(n.Value)+" is not a whole number", "")
		}
		if i <= 0 {
			return d.fail(n, where, fmt.Sprintf("%d must be positive", i), "give a number greater than zero, or leave the key out to take the default")
		}
		v.SetInt(int64(i))
		return nil
	case reflect.Pointer:
		// An optional count whose zero means something (max_retry: 0, never
		// retried): nil when not given, else 0 or more.
		if v.Type().Elem().Kind() != reflect.Int {
			break
		}
		i, err := strconv.Atoi(n.Value)
		if n.Kind != yaml.ScalarNode || err != nil {
			return d.fail(n, where, problem.Quote(n.Value)+" is not a whole number", "")
		}
		if i < 0 {
			return d.fail(n, where, fmt.Sprintf("%d is negative", i), "give 0 or more, or leave the key out to take the default")
		}
		p := reflect.New(v.Type().Elem())
		p.Elem().SetInt(int64(i))
		v.Set(p)
		return nil
	case reflect.Bool:
		var b bool
		if n.Kind != yaml.ScalarNode || n.Decode(&b) != nil {
			return d.fail(n, where, problem.Quote(n.Value)+" is not true or false", "")
		}
		v.SetBool(b)
		return nil
	}
	return d.fail(n, where, "unsupported value", "")
}

// yamlFields maps each yaml key of struct type t to its field index.
func yamlFields(t reflect.Type) map[string]int {
	m := map[string]int{}
	for i := range t.NumField() {
		tag := t.Field(i).Tag.Get("yaml")
		name, _, _ := strings.Cut(tag, ",")
		if name != "" && name != "-" {
			m[name] = i
		}
	}
	return m
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// SplitList splits "a, b,c" into its trimmed, non-empty parts.
func SplitList(s string) []string {
	var out []string
	for p := range strings.SplitSeq(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// MarshalAnswersFile writes a as gsgen.yaml, in this gsgen's format. Field
// order is the struct's, so the same answers give the same bytes.
func MarshalAnswersFile(a Answers) ([]byte, error) {
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "%s: %d\n", formatKey, AnswersFormat)
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(a); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// nearest returns the candidate within two edits of s, if any: the key the
// user probably meant.
func nearest(s string, candidates []string) string {
	if len(s) > 64 {
		return "" // no key is that long, and the distance costs len(s) times each key
	}
	best, bestDist := "", 3
	for _, c := range candidates {
		if d := editDistance(s, c); d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
