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

var asynqModes = []Option{
	{"inprocess", "srv.Start beside HTTP in one binary; main stops and drains it"},
	{"dedicated", "its own worker binary and Deployment, with srv.Run"},
}

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
	steps := []func() error{iv.service, iv.components, iv.checkGiven, iv.http, iv.outbox, iv.asynq, iv.consumers, iv.cleaners, iv.kinds, iv.timeouts}
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

// question is one answer typed as text.
type question struct {
	field string // answers path, as the generator's errors name it: "module", "timeouts.grace"
	title string
	help  string
	def   string
	// offer, when set, is the default instead of def, worked out when the
	// question is asked: from the answers before it.
	offer func() string
	// when, when set, says whether the question is asked at all, from the
	// answers before it (a time zone only for a cron schedule).
	when func() bool
	// also names the other answers an answer to it may be refused on: one
	// schedule question sets an interval or a cron schedule.
	also []string
	set  func(a *answers.Answers, s string) error // parses s into a
}

// text asks q until the answer parses and the generator accepts it.
func (iv *interview) text(q question) error {
	if q.when != nil && !q.when() {
		return nil
	}
	if q.offer != nil {
		q.def = q.offer()
	}
	s, err := iv.ask.Text(Text{Title: q.title, Help: q.help, Default: q.def, Check: func(s string) error {
		candidate := iv.a.Clone()
		if err := q.set(&candidate, s); err != nil {
			return err
		}
		return iv.fieldError(candidate, append([]string{q.field}, q.also...)...)
	}})
	if err != nil {
		return err
	}
	iv.asked[q.field] = q
	return q.set(&iv.a, s)
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
		err := iv.text(question{field: "name", title: "Service name", def: iv.defaultName,
			help: "names the binary, the Go package and the Kubernetes objects: lower case, digits and '-'",
			set:  func(a *answers.Answers, s string) error { a.Name = s; return nil }})
		if err != nil {
			return err
		}
	}
	if iv.a.Module == "" {
		return iv.text(question{field: "module", title: "Go module path", def: answers.DefaultModule(iv.a.Name),
			help: "the module line of go.mod, e.g. github.com/you/" + iv.a.Name,
			set:  func(a *answers.Answers, s string) error { a.Module = s; return nil }})
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

func (iv *interview) http() error {
	if !iv.has(answers.HTTP) || iv.a.HTTP.Port != 0 {
		return nil
	}
	return iv.text(question{field: "http.port", title: "HTTP port", def: strconv.Itoa(answers.DefaultHTTPPort),
		help: "the port the HTTP server listens on",
		set:  func(a *answers.Answers, s string) error { return parseCount(s, &a.HTTP.Port) }})
}

func (iv *interview) outbox() error {
	if !iv.has(answers.Outbox) {
		return nil
	}
	o, def := &iv.a.Outbox, iv.defaults().Outbox
	qs := []struct {
		unanswered bool
		q          question
	}{
		{o.Topic == "", question{field: "outbox.topic", title: "Outbox topic", def: def.Topic,
			help: "the Kafka topic the relay publishes the example event to",
			set:  func(a *answers.Answers, s string) error { a.Outbox.Topic = s; return nil }}},
		{o.BatchSize == 0, question{field: "outbox.batch_size", title: "Outbox batch size", def: strconv.Itoa(def.BatchSize),
			help: "rows locked, published and marked per batch; small batches fit the drain budget",
			set:  func(a *answers.Answers, s string) error { return parseCount(s, &a.Outbox.BatchSize) }}},
		{o.PollInterval == 0, question{field: "outbox.poll_interval", title: "Outbox poll interval", def: def.PollInterval.String(),
			help: "pause between batches when there is no backlog",
			set:  func(a *answers.Answers, s string) error { return parseDuration(s, &a.Outbox.PollInterval) }}},
	}
	for _, q := range qs {
		if q.unanswered {
			if err := iv.text(q.q); err != nil {
				return err
			}
		}
	}
	return nil
}

func (iv *interview) asynq() error {
	if !iv.has(answers.Asynq) || iv.a.Asynq.Mode != "" {
		return nil
	}
	mode, err := iv.ask.ChooseOne(Choice{Title: "asynq mode", Options: asynqModes,
		Help: "where the asynq server runs"}, iv.defaults().Asynq.Mode)
	iv.a.Asynq.Mode = mode
	return err
}

// consumers asks for each Kafka consumer's name and topic until the user
// has no more.
func (iv *interview) consumers() error {
	if !iv.has(answers.Kafka) || iv.a.Consumers != nil {
		return nil
	}
	first := iv.defaults().Consumers[0] // the consumer gsgen adds when none is named
	for i := 0; ; i++ {
		def := ""
		if i == 0 {
			def = first.Name
		}
		err := iv.text(question{field: fmt.Sprintf("kafka[%d].name", i), title: fmt.Sprintf("Kafka consumer %d name", i+1), def: def,
			help: "names its Run loop, files and env vars (KAFKA_<NAME>_...); lower case, digits and '-'",
			set: func(a *answers.Answers, s string) error {
				a.Consumers = append(a.Consumers[:i:i], answers.ConsumerAnswers{Name: s})
				return nil
			}})
		if err != nil {
			return err
		}
		topic := iv.a.Consumers[i].Name // a consumer of its own topic by default,
		if iv.has(answers.Outbox) {
			topic = iv.defaults().Outbox.Topic // or of what the relay publishes
		}
		err = iv.text(question{field: fmt.Sprintf("kafka[%d].topic", i), title: fmt.Sprintf("Kafka consumer %d topic", i+1), def: topic,
			help: "the topic it reads in its consumer group",
			set:  func(a *answers.Answers, s string) error { a.Consumers[i].Topic = s; return nil }})
		if err != nil {
			return err
		}
		more, err := iv.ask.Confirm("Add another Kafka consumer?", false)
		if err != nil || !more {
			return err
		}
	}
}

// cleaners asks for the name and retention of each cleaner the components
// bring (one per gsgen table).
func (iv *interview) cleaners() error {
	if !iv.has(answers.Cleaner) || iv.a.Cleaners != nil {
		return nil
	}
	iv.a.Cleaners = iv.defaults().Cleaners
	for i, c := range iv.a.Cleaners {
		what := fmt.Sprintf("Cleaner of %s rows", c.Table)
		qs := []question{
			{field: fmt.Sprintf("cleaners[%d].name", i), title: what + ": name", def: c.Name,
				help: fmt.Sprintf("deletes %s rows whose %s is older than the retention", c.Table, c.Column),
				set:  func(a *answers.Answers, s string) error { a.Cleaners[i].Name = s; return nil }},
			{field: fmt.Sprintf("cleaners[%d].retention", i), title: what + ": retention", def: c.Retention.String(),
				help: "how long rows are kept, e.g. 168h for a week",
				set:  func(a *answers.Answers, s string) error { return parseDuration(s, &a.Cleaners[i].Retention) }},
		}
		for _, q := range qs {
			if err := iv.text(q); err != nil {
				return err
			}
		}
	}
	return nil
}

// kinds asks, for each kind the service has, in the kinds' order, the
// questions it declares (its flags with a title) whose answers are not
// given: a switch as yes or no, anything else as text checked by the
// kind's own validation.
func (iv *interview) kinds() error {
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
	return iv.text(question{field: f.Field, title: f.Title, help: f.Help(), def: def,
		set: func(a *answers.Answers, s string) error { return inPromptTerms(f.Set(a, s)) }})
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
	return iv.text(question{field: field, title: title, help: help, def: problem.Seconds(offer),
		set: func(a *answers.Answers, s string) error { return parseDuration(s, durationAt(a, field)) }})
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
		f.q.def, f.q.offer = problem.Seconds(f.fits), nil
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
func (f fix) key() string { return strings.TrimPrefix(f.q.field, "timeouts.") }

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

func parseDuration(s string, into *answers.Duration) error {
	d, err := time.ParseDuration(s)
	switch {
	case err != nil:
		return fmt.Errorf("%s is not a duration; write it in Go syntax, e.g. 25s, 1m30s or 500ms", problem.Quote(s))
	case d <= 0:
		return fmt.Errorf("%s must be positive", problem.Shorten(s))
	}
	*into = answers.Duration(d)
	return nil
}

// parseRetries reads a number of retries: 0 or more.
func parseRetries(s string, into **int) error {
	n, err := strconv.Atoi(s)
	switch {
	case err != nil:
		return fmt.Errorf("%s is not a whole number", problem.Quote(s))
	case n < 0:
		return fmt.Errorf("%d is negative; give 0 (never retried) or more", n)
	}
	*into = answers.Retries(n)
	return nil
}

func parseCount(s string, into *int) error {
	n, err := strconv.Atoi(s)
	switch {
	case err != nil:
		return fmt.Errorf("%s is not a whole number", problem.Quote(s))
	case n <= 0:
		return fmt.Errorf("%d must be positive", n)
	}
	*into = n
	return nil
}
