package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/gsgen-dev/gsgen/generator"
)

func newVersionCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print gsgen's version",
		Example: "  gsgen version",
		Args:    exactArgs(0, "no arguments"),
		RunE: func(*cobra.Command, []string) error {
			// Two versions: the build's (what go install fetched) and the
			// generated code's, which gsgen.base records and gsgen upgrade
			// compares; a checkout's build has only the second.
			fmt.Fprintf(e.stdout, "gsgen %s (%s), writes services as %s\n", version(), runtime.Version(), generator.Version)
			return nil
		},
	}
}

// version is the module version gsgen was installed at, or "(devel)" for a
// build from a checkout.
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}
