package generator

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Service is a generated service on disk, as a re-run (add, regen, remove)
// reads it: the answers it was made from, what gsgen last wrote, and the SQL
// the user added beside gsgen's.
type Service struct {
	Dir     string
	Answers Answers           // gsgen.yaml, as written (defaults already applied)
	Lock    Lock              // gsgen.lock; nil for a service without one
	UserSQL map[string][]byte // the user's own db/migrations and db/queries files
}

// ReadService reads the service in dir.
func ReadService(dir string) (*Service, error) {
	answersPath := filepath.Join(dir, "gsgen.yaml")
	data, err := os.ReadFile(answersPath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &InputError{Field: "DIR", Msg: fmt.Sprintf("%s has no gsgen.yaml, so it is not a service gsgen generated", dir),
			Fix: "run this inside a generated service, pass --dir, or create one with gsgen new"}
	}
	if err != nil {
		return nil, err
	}
	a, err := ParseAnswersFile(answersPath, data)
	if err != nil {
		return nil, err
	}
	s := &Service{Dir: dir, Answers: a, UserSQL: map[string][]byte{}}
	if data, err := os.ReadFile(filepath.Join(dir, LockFile)); err == nil {
		if s.Lock, err = ParseLock(data); err != nil {
			return nil, err
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	for _, pattern := range []string{"db/migrations/*.sql", "db/queries/*.sql"} {
		matches, err := filepath.Glob(filepath.Join(dir, filepath.FromSlash(pattern)))
		if err != nil {
			return nil, err
		}
		for _, m := range matches {
			rel, _ := filepath.Rel(dir, m)
			rel = filepath.ToSlash(rel)
			if e, ok := s.Lock[rel]; ok && e.Owner == OwnedByGsgen {
				continue // gsgen's own, re-rendered (or removed) by the run
			}
			if s.UserSQL[rel], err = os.ReadFile(m); err != nil {
				return nil, err
			}
		}
	}
	return s, nil
}

// Model validates the service's answers and derives its model, with the
// tables its own migrations create (its cleaners may target them).
func (s *Service) Model() (*Model, error) { return newModel(s.Answers, userTables(s.UserSQL)) }

var (
	createTableRE = regexp.MustCompile(`(?is)\bcreate\s+table\s+(?:if\s+not\s+exists\s+)?(?:\w+\.)?"?(\w+)"?\s*\((.*?)\)\s*;`)
	columnKeyRE   = regexp.MustCompile(`(?im)^\s*"?(\w+)"?\s+[^,]*\bprimary\s+key\b`)
	tableKeyRE    = regexp.MustCompile(`(?is)\bprimary\s+key\s*\(([^)]*)\)`)
)

// userTables finds the tables the user's migrations create, with the key a
// cleaner's keyed subquery can use: the primary key when the migration
// declares one, else "id". Only the "up" part of a goose-style file counts.
func userTables(userSQL map[string][]byte) map[string]string {
	tables := map[string]string{}
	for _, p := range sortedKeys(userSQL) {
		if !strings.HasPrefix(p, "db/migrations/") {
			continue
		}
		up, _, _ := strings.Cut(string(userSQL[p]), "-- +goose Down")
		for _, m := range createTableRE.FindAllStringSubmatch(up, -1) {
			table, body := strings.ToLower(m[1]), m[2]
			key := "id"
			if k := tableKeyRE.FindStringSubmatch(body); k != nil {
				key = strings.Join(strings.Fields(strings.ReplaceAll(k[1], `"`, "")), " ")
			} else if k := columnKeyRE.FindStringSubmatch(body); k != nil {
				key = strings.ToLower(k[1])
			}
			tables[table] = key
		}
	}
	return tables
}
