package main

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/gsgen-dev/gsgen/generator"
)

// answerFlags are the flags that give answers. They override the answers file.
type answerFlags struct {
	file       string
	name       string
	module     string
	components string
	port       int
	timeouts   map[string]*time.Duration // by TimeoutField.Flag
}

func addAnswerFlags(cmd *cobra.Command) *answerFlags {
	f := &answerFlags{timeouts: map[string]*time.Duration{}}
	fs := cmd.Flags()
	fs.StringVarP(&f.file, "config", "f", "", "answers file (the schema of the gsgen.yaml written into every service)")
	fs.StringVar(&f.name, "name", "", "service name: a DNS-1123 label (default: base name of DIR)")
	fs.StringVar(&f.module, "module", "", "Go module path (default: example.com/<name>)")
	fs.StringVar(&f.components, "components", generator.DefaultComponents,
		"comma-separated components: "+strings.Join(componentNames(), ","))
	fs.IntVar(&f.port, "http-port", generator.DefaultHTTPPort, "port the HTTP server listens on")
	for _, t := range generator.TimeoutFields {
		f.timeouts[t.Flag] = fs.Duration(t.Flag, time.Duration(*t.Of(&generator.DefaultTimeouts)), t.Usage)
	}
	cmd.RegisterFlagCompletionFunc("components", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return componentNames(), cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
	})
	cmd.MarkFlagFilename("config", "yaml", "yml")
	return f
}

func componentNames() []string {
	var out []string
	for _, c := range generator.AllComponents {
		out = append(out, string(c))
	}
	return out
}

// answers merges, lowest first: the answers file, then the flags the user
// set. It returns the flags that were neither set nor answered by a file.
func (f *answerFlags) answers(fs *pflag.FlagSet) (a generator.Answers, unanswered []string, err error) {
	if f.file != "" {
		data, err := os.ReadFile(f.file)
		if err != nil {
			return a, nil, &generator.InputError{Field: "--config", Msg: fmt.Sprintf("cannot read answers file: %v", err), Fix: "check the path"}
		}
		if a, err = generator.ParseAnswersFile(f.file, data); err != nil {
			return a, nil, err
		}
	}
	given := func(flag string) bool {
		if fs.Changed(flag) {
			return true
		}
		if f.file == "" {
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
			return a, nil, &generator.InputError{Field: "--" + s.flag, Msg: "is empty", Fix: "give a value or leave the flag out to take the default"}
		}
		*s.into = s.value
	}
	if given("components") {
		if a.Components = generator.SplitList(f.components); len(a.Components) == 0 {
			return a, nil, &generator.InputError{Field: "--components", Msg: "is empty", Fix: "choose at least one of " + strings.Join(componentNames(), ",")}
		}
	}
	if given("http-port") {
		if f.port < 1 || f.port > 65535 {
			return a, nil, &generator.InputError{Field: "--http-port", Msg: fmt.Sprintf("%d is not a TCP port", f.port), Fix: "use a number from 1 to 65535, e.g. 8080"}
		}
		a.HTTP.Port = f.port
	}
	for _, t := range generator.TimeoutFields {
		if !given(t.Flag) {
			continue
		}
		d := *f.timeouts[t.Flag]
		if d <= 0 {
			return a, nil, &generator.InputError{Field: "--" + t.Flag, Msg: fmt.Sprintf("%v must be positive", d),
				Fix: "give a duration greater than zero, e.g. " + t.Of(&generator.DefaultTimeouts).String()}
		}
		*t.Of(&a.Timeouts) = generator.Duration(d)
	}
	return a, unanswered, nil
}
