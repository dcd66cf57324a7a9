package prompt

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gsgen-dev/gsgen/generator"
	"github.com/gsgen-dev/gsgen/generator/answers"
	"github.com/gsgen-dev/gsgen/generator/model"
	"github.com/gsgen-dev/gsgen/generator/problem"
)

// Interview asks for every answer given leaves unanswered (zero), and only
// the questions the chosen components need: name and module, components,
// component settings, then the timeouts. It checks the ladder, asking again
// for a number that collides, shows the budget, and returns the answers once
// the user confirms writing them to dir. defaultName is offered as the name.
//
// Each answer is checked as it is typed by the generator's own validation
// (generator.NewModel on the answers so far), so a prompt refuses exactly
// what an answers file would.
func Interview(ask Asker, given answers.Answers, dir, defaultName string) (answers.Answers, error) {
	iv := &interview{ask: ask, a: given, defaultName: defaultName, asked: map[string]question{}, model: generator.NewModel}
	if err := iv.checkGiven(); err != nil {
		return answers.Answers{}, err
	}
	ask.Say("gsgen asks for what the flags did not give. Enter keeps the value offered; Ctrl+C stops, writing nothing.")
	steps := []func() error{iv.service, iv.components, iv.checkGiven, iv.kinds, iv.timeouts}
	for _, step := range steps {
		if err := step(); err != nil {
			return answers.Answers{}, err
		}
	}
	m, err := iv.fitLadder()
	if err != nil {
		return answers.Answers{}, err
	}
	ask.Say(fmt.Sprintf("Service %s (module %s): %s\n\nShutdown budget\n%s",
		m.Name, m.Module, strings.Join(m.Answers.Components, ", "), m.Ladder.Table()))
	ok, err := ask.Confirm("Write it to "+dir+"?", true)
	switch {
	case err != nil:
		return answers.Answers{}, err
	case !ok:
		return answers.Answers{}, ErrDeclined
	}
	return iv.a, nil
}

type interview struct {
	ask         Asker
	a           answers.Answers     // what is known so far; zero is unanswered
	defaultName string              // offered for the service name
	asked       map[string]question // by answers path: only these may be asked again
	// model validates answers (defaults applied) as the command will:
	// generator.NewModel for a new service, the service's own model (its
	// SQL included) for gsgen add.
	model func(answers.Answers) (*model.Model, error)
	// boundsNow refuses a timeout past its drain as it is typed: gsgen add
	// asks nothing later that could make it fit.
	boundsNow bool
}

// question is one answer typed as text: a kind declares its own
// (model.Question), the interview the service's.
type question = model.Question

// text asks q until the answer parses and the generator accepts it.
func (iv *interview) text(q question) error {
	if q.When != nil && !q.When() {
		return nil
	}
	if q.Offer != nil {
		q.Def = q.Offer()
	}
	s, err := iv.ask.Text(Text{Title: q.Title, Help: q.Help, Default: q.Def, Check: func(s string) error {
		candidate := iv.a.Clone()
		if err := q.Set(&candidate, s); err != nil {
			return err
		}
		return iv.fieldError(candidate, append([]string{q.Field}, q.Also...)...)
	}})
	if err != nil {
		return err
	}
	iv.asked[q.Field] = q
	return q.Set(&iv.a, s)
}

// The interview is what the kinds' questions are asked through
// (model.Interview).

func (iv *interview) Answers() *answers.Answers   { return &iv.a }
func (iv *interview) Defaults() answers.Answers   { return iv.defaults() }
func (iv *interview) Text(q model.Question) error { return iv.text(q) }
func (iv *interview) Confirm(title string, def bool) (bool, error) {
	return iv.ask.Confirm(title, def)
}

func (iv *interview) ChooseOne(title, help string, options [][2]string, def string) (string, error) {
	opts := make([]Option, len(options))
	for i, o := range options {
		opts[i] = Option{o[0], o[1]}
	}
	return iv.ask.ChooseOne(Choice{Title: title, Help: help, Options: opts}, def)
}

// fieldError is the generator's complaint about the answers, if it names
// one of fields. Complaints about other answers wait for their own question;
// the ladder is checked at the end.
func (iv *interview) fieldError(a answers.Answers, fields ...string) error {
	_, err := iv.model(a.WithDefaults())
	var broken *model.LadderError
	var input *problem.InputError
	if errors.As(err, &broken) && !iv.boundsNow || !errors.As(err, &input) || !slices.Contains(fields, input.Field) {
		return nil
	}
	return inPromptTerms(input)
}

// checkGiven refuses a bad answer a flag gave before asking anything it
// does not depend on: first thing, or once the components are chosen when
// they were not given (--consumer is fine if kafka is picked next). The
// questions fill every gap with something valid, so only the ladder, which
// later answers can still fix, is left for the end.
func (iv *interview) checkGiven() error {
	if len(iv.a.Components) == 0 {
		return nil
	}
	candidate := iv.defaults()
	if iv.a.Name == "" {
		candidate.Name = "service" // any valid name: the name is asked
		candidate.Module = cmp.Or(iv.a.Module, answers.DefaultModule(candidate.Name))
	}
	_, err := iv.model(candidate)
	if errors.As(err, new(*model.LadderError)) {
		return nil
	}
	return err
}

func (iv *interview) has(c answers.Component) bool {
	return slices.Contains(iv.a.Components, string(c))
}

// defaults is the answers so far with every gap filled: the values offered.
func (iv *interview) defaults() answers.Answers { return iv.a.Clone().WithDefaults() }

func (iv *interview) service() error {
	if iv.a.Name == "" {
		err := iv.text(question{Field: "name", Title: "Service name", Def: iv.defaultName,
			Help: "names the binary, the Go package and the Kubernetes objects: lower case, digits and '-'",
			Set:  func(a *answers.Answers, s string) error { a.Name = s; return nil }})
		if err != nil {
			return err
		}
	}
	if iv.a.Module == "" {
		return iv.text(question{Field: "module", Title: "Go module path", Def: answers.DefaultModule(iv.a.Name),
			Help: "the module line of go.mod, e.g. github.com/you/" + iv.a.Name,
			Set:  func(a *answers.Answers, s string) error { a.Module = s; return nil }})
	}
	return nil
}

func (iv *interview) components() error {
	if len(iv.a.Components) > 0 {
		return nil
	}
	var opts []Option
	for _, c := range model.AllComponents {
		opts = append(opts, Option{string(c), model.KindNamed(string(c)).Menu})
	}
	picked, err := iv.ask.ChooseMany(Choice{Title: "Components", Options: opts,
		Help: "the parts of the service; main.go starts them in order and stops them in reverse",
		Check: func(p []string) error {
			if len(p) == 0 {
				return errors.New("choose at least one component")
			}
			candidate := iv.a.Clone()
			candidate.Components = p
			return iv.fieldError(candidate, "components", "cleaners")
		}}, []string{answers.DefaultComponents})
	iv.a.Components = picked
	return err
}

// kinds asks, for each kind the service has, in the kinds' order, the
// questions it declares (model.Kind.Ask); then, for each, those of its
// flags with a title whose answers are not given: a switch as yes or no,
// anything else as text checked by the kind's own validation.
func (iv *interview) kinds() error {
	for _, k := range model.Kinds {
		if iv.has(k.Name) {
			if err := k.Ask(iv, false); err != nil {
				return err
			}
		}
	}
	for _, k := range model.Kinds {
		if !iv.has(k.Name) {
			continue
		}
		for _, f := range k.Flags() {
			if f.Title == "" || f.Answered(iv.a) {
				continue
			}
			if err := iv.kindQuestion(f); err != nil {
				return err
			}
		}
	}
	return nil
}

func (iv *interview) kindQuestion(f model.KindFlag) error {
	def := f.Value(iv.defaults())
	if f.Bool {
		yes, err := iv.ask.Confirm(f.Title, def == "true")
		if err != nil {
			return err
		}
		return f.Set(&iv.a, strconv.FormatBool(yes))
	}
	return iv.text(question{Field: f.Field, Title: f.Title, Help: f.Help(), Def: def,
		Set: func(a *answers.Answers, s string) error { return inPromptTerms(f.Set(a, s)) }})
}

// inPromptTerms is a flag's complaint about a typed answer without the
// flag's name: the prompt shows it under the question.
func inPromptTerms(err error) error {
	var input *problem.InputError
	if !errors.As(err, &input) {
		return err
	}
	if input.Fix == "" {
		return errors.New(input.Msg)
	}
	return errors.New(input.Msg + "; " + input.Fix)
}

// timeouts asks for the timeouts the chosen components use, in the order
// of the shutdown (the ladder's phases), each bound right after the drain
// it must fit in, and the grace period last, when the worst case is known.
func (iv *interview) timeouts() error {
	l, err := iv.ladder()
	if err != nil {
		return err
	}
	iv.ask.Say("Shutdown timeouts. On SIGTERM the service waits out preStop, drains its parts in parallel,\n" +
		"closes what they used, and must be done, with a margin, before SIGKILL at the grace period.")
	for _, p := range l.Phases() {
		if p.Key == "" {
			continue // slack: derived, not an answer
		}
		if err := iv.duration("timeouts."+p.Key, p.Name, usage(p.Key), 0); err != nil {
			return err
		}
		for _, b := range l.Inner {
			if b.LimitKey == p.Key {
				help := fmt.Sprintf("must not exceed %s: otherwise %s", b.LimitName, b.Why)
				if err := iv.duration(b.Field, b.Name, help, 0); err != nil {
					return err
				}
			}
		}
	}
	if l, err = iv.ladder(); err != nil {
		return err
	}
	// The offer is what the help says it must be at least: the sum, in
	// whole seconds, when the default grace period is shorter.
	worst := ceilSecond(l.Worst())
	return iv.duration("timeouts.grace", "grace period", fmt.Sprintf("%s; preStop + longest drain + close + margin = %s, so at least that",
		usage("grace"), problem.Seconds(worst)), worst)
}

// duration asks for the timeout at field unless it was given or cannot be
// asked (a consumer's handler timeout keeps its default). It offers the
// default, or atLeast when that is longer.
func (iv *interview) duration(field, title, help string, atLeast time.Duration) error {
	at := durationAt(&iv.a, field)
	if at == nil || *at != 0 {
		return nil
	}
	def := iv.defaults()
	offer := max(time.Duration(*durationAt(&def, field)), atLeast)
	return iv.text(question{Field: field, Title: title, Help: help, Def: problem.Seconds(offer),
		Set: func(a *answers.Answers, s string) error { return answers.ParseDuration(s, durationAt(a, field)) }})
}

// ceilSecond rounds d up to whole seconds: Kubernetes counts the grace
// period in them.
func ceilSecond(d time.Duration) time.Duration { return (d + time.Second - 1).Truncate(time.Second) }

// durationAt is the timeout answer at an answers path, nil if it is not one
// the interview asks.
func durationAt(a *answers.Answers, field string) *answers.Duration {
	if field == "outbox.batch_timeout" {
		return &a.Outbox.BatchTimeout
	}
	key, _ := strings.CutPrefix(field, "timeouts.")
	for _, t := range answers.TimeoutFields {
		if t.Key == key {
			return t.Of(&a.Timeouts)
		}
	}
	return nil
}

func usage(key string) string {
	for _, t := range answers.TimeoutFields {
		if t.Key == key {
			return t.Usage
		}
	}
	return ""
}

// ladder is the budget of the answers so far, broken or not.
func (iv *interview) ladder() (model.Ladder, error) {
	m, err := iv.model(iv.defaults())
	var broken *model.LadderError
	if errors.As(err, &broken) {
		return broken.Ladder, nil
	}
	if err != nil {
		return model.Ladder{}, err
	}
	return m.Ladder, nil
}

// fitLadder validates the whole answers. While the ladder breaks, it says
// which numbers collide, asks which of them to change when the user answered
// more than one here, and asks for that one again, offering a value that
// fits.
func (iv *interview) fitLadder() (*model.Model, error) {
	for {
		m, err := iv.model(iv.defaults())
		var broken *model.LadderError
		if !errors.As(err, &broken) {
			return m, err
		}
		fixes := iv.fixes(broken)
		if len(fixes) == 0 {
			return nil, err // only flags gave the numbers that collide
		}
		iv.ask.Say("The timeouts do not fit: " + broken.Error())
		f := fixes[0]
		if len(fixes) > 1 {
			var opts []Option
			for _, f := range fixes {
				opts = append(opts, Option{f.key(), f.what})
			}
			key, err := iv.ask.ChooseOne(Choice{Title: "Which number do you change?", Options: opts,
				Help: "the numbers named above that you answered here; each is offered a value that fits"}, fixes[0].key())
			if err != nil {
				return nil, err
			}
			f = fixes[slices.IndexFunc(fixes, func(f fix) bool { return f.key() == key })]
		}
		f.q.Def, f.q.Offer = problem.Seconds(f.fits), nil
		if err := iv.text(f.q); err != nil {
			return nil, err
		}
	}
}

// fix is one way out of a broken ladder: a question the user answered here,
// and a value of it that fits.
type fix struct {
	q    question
	fits time.Duration
	what string // "shorten HTTP drain (http_shutdown) to 15s"
}

// key names the number as the error does: http_shutdown, outbox.batch_timeout.
func (f fix) key() string { return strings.TrimPrefix(f.q.Field, "timeouts.") }

// fixes lists the numbers a broken ladder names, in the order its error
// names them, that the user answered here (a number a flag gave stays as
// given), each with the value that fits: the ways out the error offers.
func (iv *interview) fixes(broken *model.LadderError) []fix {
	l, field := broken.Ladder, broken.Err.Field
	var out []fix
	offer := func(key string, fits time.Duration, what string) {
		if q, ok := iv.asked[key]; ok {
			out = append(out, fix{q, fits, what})
		}
	}
	if field == "timeouts.grace" {
		offer("timeouts.grace", ceilSecond(l.Worst()), "raise the grace period to "+problem.Seconds(ceilSecond(l.Worst())))
		// The drains run side by side: each one past what fits must shrink.
		if fit := l.Grace - l.PreStop - l.Close - l.Margin; fit >= time.Second {
			for _, d := range l.Drains {
				if d.D > fit {
					offer(answerPath(d.Key), fit, fmt.Sprintf("shorten %s (%s) to %s", d.Name, d.Key, problem.Seconds(fit)))
				}
			}
		}
		if fit := l.Grace - l.PreStop - l.LongestDrain().D - l.Margin; fit >= 100*time.Millisecond && fit < l.Close {
			offer("timeouts.close_budget", fit, "shorten close (close_budget) to "+problem.Seconds(fit))
		}
		return out
	}
	for _, b := range l.Inner {
		if b.Field == field {
			// Margin included: a task timeout must end a second before its drain.
			offer(b.Field, b.Longest(), fmt.Sprintf("shorten %s to %s", b.Name, problem.Seconds(b.Longest())))
			offer(answerPath(b.LimitKey), b.LeastLimit(), fmt.Sprintf("raise %s (%s) to %s", b.LimitName, b.LimitKey, problem.Seconds(b.LeastLimit())))
		}
	}
	return out
}

// answerPath is the answers path of a ladder key: a timeout of the
// timeouts: section (http_shutdown), or a kind's own (grpc.shutdown_timeout).
func answerPath(key string) string {
	if strings.Contains(key, ".") {
		return key
	}
	return "timeouts." + key
}
