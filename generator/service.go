package generator

import (
	"fmt"

	"github.com/gsgen-dev/gsgen/generator/answers"
	"github.com/gsgen-dev/gsgen/generator/model"
	"github.com/gsgen-dev/gsgen/generator/problem"
	"github.com/gsgen-dev/gsgen/generator/render"
	"github.com/gsgen-dev/gsgen/generator/servicedir"
)

// Service is a generated service on disk, as a re-run (add, regen, remove)
// reads it: the answers it was made from, what gsgen last wrote, and the SQL
// the user added beside gsgen's.
type Service struct {
	Answers answers.Answers   // gsgen.yaml, as written (defaults already applied)
	Lock    servicedir.Lock   // gsgen.lock; nil for a service without one
	Base    *Base             // gsgen.base; nil for a service written before it
	UserSQL map[string][]byte // the user's own db/migrations and db/queries files
	dir     *servicedir.ServiceDir
}

// readServiceAnswers reads the gsgen.yaml of the service in d.
func readServiceAnswers(d *servicedir.ServiceDir) (answers.Answers, error) {
	yaml, err := d.ReadAtMost(answers.AnswersFile, servicedir.MaxAnswersFile)
	if err != nil {
		return answers.Answers{}, err
	}
	if !yaml.Exists {
		return answers.Answers{}, &problem.InputError{Field: "DIR", Msg: fmt.Sprintf("%s has no gsgen.yaml, so it is not a service gsgen generated", d.Name()),
			Fix: "run this inside a generated service, pass --dir, or create one with gsgen new"}
	}
	return answers.ParseAnswersFile(d.Show(answers.AnswersFile), yaml.Content)
}

// ReadService reads the service in d.
func ReadService(d *servicedir.ServiceDir) (*Service, error) {
	a, err := readServiceAnswers(d)
	if err != nil {
		return nil, err
	}
	return readServiceWith(d, a)
}

// ReadServiceToUpgrade reads the service in d as gsgen upgrade does: its
// gsgen.yaml brought from an older format to this gsgen's
// (MigrateAnswersFile), with one line for each thing migrating changed.
func ReadServiceToUpgrade(d *servicedir.ServiceDir) (*Service, []string, error) {
	yaml, err := d.ReadAtMost(answers.AnswersFile, servicedir.MaxAnswersFile)
	if err != nil {
		return nil, nil, err
	}
	if !yaml.Exists {
		return nil, nil, &problem.InputError{Field: "DIR", Msg: fmt.Sprintf("%s has no gsgen.yaml, so it is not a service gsgen generated", d.Name()),
			Fix: "run this inside a generated service, or give its directory"}
	}
	a, notes, err := answers.MigrateAnswersFile(d.Show(answers.AnswersFile), yaml.Content)
	if err != nil {
		return nil, nil, err
	}
	s, err := readServiceWith(d, a)
	return s, notes, err
}

// readServiceWith reads the service in d, its answers already read.
func readServiceWith(d *servicedir.ServiceDir, a answers.Answers) (*Service, error) {
	s := &Service{Answers: a, UserSQL: map[string][]byte{}, dir: d}
	lock, err := d.ReadAtMost(servicedir.LockFile, servicedir.MaxLockFile)
	if err != nil {
		return nil, err
	}
	if lock.Exists {
		if s.Lock, err = servicedir.ParseLock(lock.Content); err != nil {
			return nil, err
		}
	}
	base, err := d.ReadAtMost(BaseFile, maxBaseFile)
	if err != nil {
		return nil, err
	}
	if base.Exists {
		if s.Base, err = ParseBase(base.Content); err != nil {
			return nil, err
		}
	}
	for _, dir := range []string{"db/migrations", "db/queries"} {
		paths, err := d.ListSQL(dir)
		if err != nil {
			return nil, err
		}
		for _, p := range paths {
			if e, ok := s.Lock[p]; ok && e.Owner == render.OwnedByGsgen {
				continue // gsgen's own, re-rendered (or removed) by the run
			}
			f, err := d.Read(p)
			if err != nil {
				return nil, err
			}
			if f.Exists {
				s.UserSQL[p] = f.Content
			}
		}
	}
	return s, nil
}

// Model validates the service's answers and derives its model, with the
// tables its own migrations create (its cleaners may target them).
func (s *Service) Model() (*model.Model, error) { return s.ModelOf(s.Answers.WithDefaults()) }

// ModelOf validates answers a (defaults applied) as answers of this service,
// its own SQL included: what gsgen add checks an answer against as it is
// typed, the Go its named instances render included.
func (s *Service) ModelOf(a answers.Answers) (*model.Model, error) {
	m, err := newModel(a, s.UserSQL)
	if err != nil {
		return nil, err
	}
	return m, render.CheckInstanceGo(m)
}
