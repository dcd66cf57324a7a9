package prompt

import (
	"fmt"
	"strings"

	"github.com/gsgen-dev/gsgen/generator/answers"
	"github.com/gsgen-dev/gsgen/generator/model"
)

// Added is what AddInterview settled: the kind, the new instance's name
// (empty for a component without instances) and the answers with it added.
type Added struct {
	Kind    string
	Name    string
	Answers answers.Answers
}

// AddInterview asks what to add to the service whose answers are a: the
// kind (a component it lacks, or one more named instance), the name, the
// kind's settings. model validates answers as the service will (its own SQL
// included), and each answer is checked as it is typed. It returns once the
// user confirms adding it to the service in dir (shown as given: pass it
// absolute, so the question names the directory).
func AddInterview(ask Asker, a answers.Answers, dir string, newModel func(answers.Answers) (*model.Model, error)) (Added, error) {
	iv := &interview{ask: ask, a: a.Clone(), asked: map[string]question{}, model: newModel, boundsNow: true}
	var opts []Option
	for _, k := range model.Kinds {
		if k.Instances == nil && iv.has(k.Name) {
			continue // one of them is all a service can have
		}
		opts = append(opts, Option{string(k.Name), k.What})
	}
	kind, err := ask.ChooseOne(Choice{Title: "What to add", Help: "a component the service lacks, or one more named part", Options: opts}, opts[0].Value)
	if err != nil {
		return Added{}, err
	}
	k := model.KindNamed(kind)
	added := Added{Kind: kind}
	if k.Instances == nil {
		if iv.a, err = iv.a.AddComponent(k.Name); err != nil {
			return Added{}, err
		}
		if err := k.Ask(iv, true); err != nil {
			return Added{}, err
		}
	} else {
		if added.Name, err = iv.addInstance(k); err != nil {
			return Added{}, err
		}
	}
	m, err := iv.model(iv.defaults())
	if err != nil {
		return Added{}, err // the ladder: the command reports it as flags would
	}
	what := kind
	if added.Name != "" {
		what += " " + added.Name
	}
	ask.Say(fmt.Sprintf("Service %s with %s: %s\n\nShutdown budget\n%s", m.Name, what, strings.Join(m.Answers.Components, ", "), m.Ladder.Table()))
	ok, err := ask.Confirm(fmt.Sprintf("Add %s to the service %s in %s?", what, m.Name, dir), true)
	switch {
	case err != nil:
		return Added{}, err
	case !ok:
		return Added{}, ErrDeclined
	}
	added.Answers = iv.a
	return added, nil
}

// addInstance asks for the name and settings of one more instance of k and
// adds it to the answers; it returns the name.
func (iv *interview) addInstance(k *model.Kind) (string, error) {
	// The service as it is, before the new instance: what a new cleaner is
	// offered comes from its schema and its cleaners.
	service, err := iv.model(iv.defaults())
	if err != nil {
		return "", err
	}
	title := map[bool]string{true: "Task type", false: strings.ToUpper(k.Instances.Noun[:1]) + k.Instances.Noun[1:] + " name"}[k.Name == answers.Task]
	i := len(k.Instances.Names(iv.a))
	field := fmt.Sprintf("%s[%d]", k.Instances.Field, i)
	q := question{Field: field + "." + map[bool]string{true: "type", false: "name"}[k.Name == answers.Task], Title: title,
		Help: k.NameHelp,
		Set: func(a *answers.Answers, s string) error {
			var err error
			*a, err = k.AddInstance(*a, s)
			return err
		}}
	// The name is set on a copy until it is accepted: Text checks it, then
	// the interview adds it once.
	s, err := iv.ask.Text(Text{Title: q.Title, Help: q.Help, Check: func(s string) error {
		candidate := iv.a.Clone()
		if err := q.Set(&candidate, s); err != nil {
			return err
		}
		return iv.fieldError(candidate, q.Field, k.Instances.Field)
	}})
	if err != nil {
		return "", err
	}
	if iv.a, err = k.AddInstance(iv.a, s); err != nil {
		return "", err
	}
	for _, q := range k.AddQuestions(iv, i, service) {
		if err := iv.text(q); err != nil {
			return "", err
		}
	}
	return s, nil
}
