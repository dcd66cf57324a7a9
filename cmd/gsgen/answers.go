package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/gsgen-dev/gsgen/generator/answers"
	"github.com/gsgen-dev/gsgen/generator/model"
	"github.com/gsgen-dev/gsgen/generator/problem"
	"github.com/gsgen-dev/gsgen/generator/servicedir"
)

// answerFlags are the flags that give the answers of a new service. They
// override the answers file.
type answerFlags struct {
	file       string
	name       string
	module     string
	components string
	consumers  []string // NAME or NAME:TOPIC
	tracing    bool
	ci         string
	settings   *settingFlags
}

// settingFlags are the answers a re-run may change too: the timeouts and
// the kinds' own settings (outbox, asynq, grpc).
type settingFlags struct {
	timeouts map[string]*time.Duration // by TimeoutField.Flag
	kinds    map[string]*string        // the kinds' own flags, by name, as typed
}

func addAnswerFlags(cmd *cobra.Command) *answerFlags {
	f := &answerFlags{}
	fs := cmd.Flags()
	fs.StringVarP(&f.file, "config", "f", "", "answers file (the schema of the gsgen.yaml written into every service); - reads stdin")
	fs.StringVar(&f.name, "name", "", "service name: a DNS-1123 label (default: base name of DIR)")
	fs.StringVar(&f.module, "module", "", "Go module path (default: example.com/<name>)")
	fs.StringVar(&f.components, "components", answers.DefaultComponents,
		"comma-separated components: "+strings.Join(answers.ComponentNames(), ","))
	fs.StringArrayVar(&f.consumers, "consumer", nil, "kafka: a consumer as NAME or NAME:TOPIC (repeatable; default one consumer \"events\")")
	// Not a setting flag (gsgen add has none of it): tracing changes the
	// example code you own, written once; to trace an existing service, set
	// tracing: true in its gsgen.yaml and run gsgen regen.
	fs.BoolVar(&f.tracing, "tracing", false, "OpenTelemetry tracing: OTLP exporter set by OTEL_* variables; one trace from HTTP through the outbox and Kafka to the consumer, and into asynq tasks")
	fs.StringVar(&f.ci, "ci", answers.CIGitHub, "the service's CI: github (a GitHub Actions workflow gsgen owns, "+model.CIWorkflowPath+") or none (CI of your own)")
	f.settings = addSettingFlags(cmd)
	f.settings.addKindFlags(fs, true)
	cmd.RegisterFlagCompletionFunc("components", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return answers.ComponentNames(), cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
	})
	cmd.MarkFlagFilename("config", "yaml", "yml")
	return f
}

func addSettingFlags(cmd *cobra.Command) *settingFlags {
	f := &settingFlags{timeouts: map[string]*time.Duration{}, kinds: map[string]*string{}}
	fs := cmd.Flags()
	for _, t := range answers.TimeoutFields {
		f.timeouts[t.Flag] = fs.Duration(t.Flag, time.Duration(*t.Of(&answers.DefaultTimeouts)), t.Usage)
	}
	f.addKindFlags(fs, false)
	cmd.RegisterFlagCompletionFunc("asynq-mode", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return []string{"inprocess", "dedicated"}, cobra.ShellCompDirectiveNoFileComp
	})
	return f
}

// addKindFlags registers the kinds' own flags (model.KindFlags): a new
// kind brings them without a line here. newOnly picks those only gsgen new
// takes, or the others.
func (f *settingFlags) addKindFlags(fs *pflag.FlagSet, newOnly bool) {
	for _, k := range model.KindFlags() {
		if k.NewOnly != newOnly {
			continue
		}
		typed := k.Default
		f.kinds[k.Name] = &typed
		switch k.Type {
		case "":
			fs.StringVar(&typed, k.Name, k.Default, k.Usage)
		case "bool":
			fs.Var(kindSwitch{kindValue{&typed, k.Type}}, k.Name, k.Usage)
		default:
			fs.Var(kindValue{&typed, k.Type}, k.Name, k.Usage)
		}
		if k.Bool {
			fs.Lookup(k.Name).NoOptDefVal = "true"
		}
	}
}

// fromFile reports whether the answers come from a file (-f).
func (f *answerFlags) fromFile(fs *pflag.FlagSet) bool { return fs.Changed("config") }

// answers merges, lowest first: the answers file (-f FILE, or - for stdin),
// then the flags the user set. It returns the flags that were neither set
// nor answered by a file.
func (f *answerFlags) answers(fs *pflag.FlagSet, stdin io.Reader) (a answers.Answers, unanswered []string, err error) {
	if f.fromFile(fs) {
		var data []byte
		name := f.file
		if f.file == "-" {
			name = "stdin"
			data, err = servicedir.ReadAnswers("--config", stdin)
		} else {
			data, err = servicedir.ReadAnswersFile("--config", f.file)
		}
		if err != nil {
			return a, nil, err
		}
		if a, err = answers.ParseAnswersFile(name, data); err != nil {
			return a, nil, err
		}
	}
	return f.over(fs, a)
}

// over sets the answers of the flags the user set over a.
func (f *answerFlags) over(fs *pflag.FlagSet, a answers.Answers) (_ answers.Answers, unanswered []string, err error) {
	given := func(flag string) bool {
		if fs.Changed(flag) {
			return true
		}
		if !f.fromFile(fs) {
			unanswered = append(unanswered, "--"+flag)
		}
		return false
	}
	for _, s := range []struct {
		flag, value string
		into        *string
	}{{"name", f.name, &a.Name}, {"module", f.module, &a.Module}} {
		if !given(s.flag) {
			continue
		}
		if strings.TrimSpace(s.value) == "" {
			return a, nil, &problem.InputError{Field: "--" + s.flag, Msg: "is empty", Fix: "give a value or leave the flag out to take the default"}
		}
		*s.into = s.value
	}
	if given("components") {
		if a.Components = answers.SplitList(f.components); len(a.Components) == 0 {
			return a, nil, &problem.InputError{Field: "--components", Msg: "is empty", Fix: "choose at least one of " + strings.Join(answers.ComponentNames(), ",")}
		}
	}
	given("http-port") // set by its kind's flag, in apply
	if fs.Changed("consumer") {
		a.Consumers = nil
		for _, c := range f.consumers {
			name, topic, _ := strings.Cut(c, ":")
			a.Consumers = append(a.Consumers, answers.ConsumerAnswers{Name: name, Topic: topic})
		}
	}
	if fs.Changed("tracing") {
		a.Tracing = f.tracing
	}
	if fs.Changed("ci") {
		a.CI = f.ci
	}
	for _, t := range answers.TimeoutFields {
		given(t.Flag)
	}
	// The questions of the kinds chosen here (grpc's port ...): the
	// interview asks them, so they too make gsgen new ask, or say what
	// is missing without a terminal.
	for _, k := range model.Kinds {
		if !slices.Contains(a.Components, string(k.Name)) {
			continue
		}
		for _, kf := range k.Flags() {
			if kf.Title != "" {
				given(kf.Name)
			}
		}
	}
	return a, unanswered, f.settings.apply(fs, &a)
}

// apply sets the answers of the setting flags the user set.
func (f *settingFlags) apply(fs *pflag.FlagSet, a *answers.Answers) error {
	for _, t := range answers.TimeoutFields {
		if !fs.Changed(t.Flag) {
			continue
		}
		d := *f.timeouts[t.Flag]
		if err := positive(t.Flag, d); err != nil {
			return err
		}
		*t.Of(&a.Timeouts) = answers.Duration(d)
	}
	for _, k := range model.KindFlags() {
		if fs.Changed(k.Name) {
			if err := k.Set(a, *f.kinds[k.Name]); err != nil {
				return err
			}
		}
	}
	return nil
}

// kindValue holds a kind's flag as typed, for KindFlag.Set to parse and
// check; typ is the value's type as the help shows it (int, duration).
type kindValue struct {
	typed *string
	typ   string
}

func (v kindValue) String() string {
	if v.typed == nil {
		return ""
	}
	return *v.typed
}

func (v kindValue) Set(s string) error { *v.typed = s; return nil }

func (v kindValue) Type() string { return v.typ }

// kindSwitch is a kind's bool flag: the help shows it without a type, as
// pflag's own bools.
type kindSwitch struct{ kindValue }

func (kindSwitch) IsBoolFlag() bool { return true }

// positive refuses a numeric flag set to zero or less. It is checked here,
// not only in the model, because zero in Answers means "not answered" and
// would silently take the default.
func positive[T int | time.Duration](flag string, v T) error {
	if v > 0 {
		return nil
	}
	return &problem.InputError{Field: "--" + flag, Msg: fmt.Sprintf("%v must be positive", v), Fix: "give a value greater than zero, or leave the flag out to take the default"}
}
