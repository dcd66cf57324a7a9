package generator

import (
	"fmt"
)

// Service is a generated service on disk, as a re-run (add, regen, remove)
// reads it: the answers it was made from, what gsgen last wrote, and the SQL
// the user added beside gsgen's.
type Service struct {
	Answers Answers           // gsgen.yaml, as written (defaults already applied)
	Lock    Lock              // gsgen.lock; nil for a service without one
	Base    *Base             // gsgen.base; nil for a service written before it
	UserSQL map[string][]byte // the user's own db/migrations and db/queries files
	dir     *ServiceDir
}

// ReadAnswers reads the service's gsgen.yaml.
func (d *ServiceDir) ReadAnswers() (Answers, error) {
	yaml, err := d.readAtMost(AnswersFile, MaxAnswersFile)
	if err != nil {
		return Answers{}, err
	}
	if !yaml.exists {
		return Answers{}, &InputError{Field: "DIR", Msg: fmt.Sprintf("%s has no gsgen.yaml, so it is not a service gsgen generated", d.shown),
			Fix: "run this inside a generated service, pass --dir, or create one with gsgen new"}
	}
	return ParseAnswersFile(d.show(AnswersFile), yaml.content)
}

// ReadService reads the service in DIR.
func (d *ServiceDir) ReadService() (*Service, error) {
	a, err := d.ReadAnswers()
	if err != nil {
		return nil, err
	}
	return d.readService(a)
}

// ReadServiceToUpgrade reads the service in DIR as gsgen upgrade does: its
// gsgen.yaml brought from an older format to this gsgen's
// (MigrateAnswersFile), with one line for each thing migrating changed.
func (d *ServiceDir) ReadServiceToUpgrade() (*Service, []string, error) {
	yaml, err := d.readAtMost(AnswersFile, MaxAnswersFile)
	if err != nil {
		return nil, nil, err
	}
	if !yaml.exists {
		return nil, nil, &InputError{Field: "DIR", Msg: fmt.Sprintf("%s has no gsgen.yaml, so it is not a service gsgen generated", d.shown),
			Fix: "run this inside a generated service, or give its directory"}
	}
	a, notes, err := MigrateAnswersFile(d.show(AnswersFile), yaml.content)
	if err != nil {
		return nil, nil, err
	}
	s, err := d.readService(a)
	return s, notes, err
}

func (d *ServiceDir) readService(a Answers) (*Service, error) {
	s := &Service{Answers: a, UserSQL: map[string][]byte{}, dir: d}
	lock, err := d.readAtMost(LockFile, maxLockFile)
	if err != nil {
		return nil, err
	}
	if lock.exists {
		if s.Lock, err = ParseLock(lock.content); err != nil {
			return nil, err
		}
	}
	base, err := d.readAtMost(BaseFile, maxBaseFile)
	if err != nil {
		return nil, err
	}
	if base.exists {
		if s.Base, err = ParseBase(base.content); err != nil {
			return nil, err
		}
	}
	for _, dir := range []string{"db/migrations", "db/queries"} {
		paths, err := d.listSQL(dir)
		if err != nil {
			return nil, err
		}
		for _, p := range paths {
			if e, ok := s.Lock[p]; ok && e.Owner == OwnedByGsgen {
				continue // gsgen's own, re-rendered (or removed) by the run
			}
			f, err := d.read(p)
			if err != nil {
				return nil, err
			}
			if f.exists {
				s.UserSQL[p] = f.content
			}
		}
	}
	return s, nil
}

// Model validates the service's answers and derives its model, with the
// tables its own migrations create (its cleaners may target them).
func (s *Service) Model() (*Model, error) { return s.ModelOf(s.Answers.WithDefaults()) }

// ModelOf validates answers a (defaults applied) as answers of this service,
// its own SQL included: what gsgen add checks an answer against as it is
// typed, the Go its named instances render included.
func (s *Service) ModelOf(a Answers) (*Model, error) {
	m, err := newModel(a, s.UserSQL)
	if err != nil {
		return nil, err
	}
	return m, checkInstanceGo(m)
}
