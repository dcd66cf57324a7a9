// Package rerun replays a recorded sequence of gsgen runs on one service
// (steps.txt) and compares where it ends with service/. It is a package of
// its own so that its builds run beside the golden package's.
package rerun

import (
	"bufio"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gsgen-dev/gsgen/internal/disktest"
	"github.com/gsgen-dev/gsgen/internal/gotool"
)

var update = flag.Bool("update", false, "rewrite service/ from what the steps end with")

// TestRerun replays golden/rerun/steps.txt with the real gsgen binary and
// compares the service it ends with against golden/rerun/service: the
// "run once, rerun to add a worker" path, recorded. A line starting with
// "! append FILE TEXT" is the user editing a file of theirs. After every
// step the service builds, vets and passes its own tests, and every file the
// user owns holds the bytes it held before (or the user's edit).
func TestRerun(t *testing.T) {
	root := t.TempDir()
	bin := filepath.Join(root, "gsgen")
	build := exec.Command("go", "build", "-o", bin, "../../cmd/gsgen")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building gsgen: %v\n%s", err, out)
	}
	work := filepath.Join(root, "work")
	os.Mkdir(work, 0o755)
	service := filepath.Join(work, "shop")

	f, err := os.Open("steps.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	userFiles := map[string]string{} // path in the service -> the bytes the user's file must hold
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if edit, ok := strings.CutPrefix(line, "! replace "); ok {
			args, err := stepFields(edit)
			if err != nil || len(args) != 3 {
				t.Fatalf("%s: want FILE OLD NEW (%v)", line, err)
			}
			b, err := os.ReadFile(filepath.Join(service, args[0]))
			if err != nil {
				t.Fatalf("%s: %v", line, err)
			}
			if n := strings.Count(string(b), args[1]); n != 1 {
				t.Fatalf("%s: %q is %d times in %s, want once:\n%s", line, args[1], n, args[0], b)
			}
			if err := os.WriteFile(filepath.Join(service, args[0]), []byte(strings.Replace(string(b), args[1], args[2], 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if edit, ok := strings.CutPrefix(line, "! append "); ok {
			path, text, _ := strings.Cut(edit, " ")
			b, err := os.ReadFile(filepath.Join(service, path))
			if err != nil {
				t.Fatalf("%s: %v", line, err)
			}
			b = append(b, "\n"+text+"\n"...) // a blank line first, as gofmt wants after a declaration
			if err := os.WriteFile(filepath.Join(service, path), b, 0o644); err != nil {
				t.Fatal(err)
			}
			userFiles[path] = string(b)
			continue
		}
		args, err := stepFields(line)
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		cmd := exec.Command(bin, args...)
		cmd.Dir = work
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("gsgen %s: %v\n%s", line, err, out)
		}
		for path, want := range userFiles {
			if got, err := os.ReadFile(filepath.Join(service, path)); err != nil || string(got) != want {
				t.Errorf("after gsgen %s, the user's %s changed (%v)", line, path, err)
			}
		}
		for path := range userOwned(t, service) {
			if _, seen := userFiles[path]; !seen {
				b, _ := os.ReadFile(filepath.Join(service, path))
				userFiles[path] = string(b)
			}
		}
		if !testing.Short() {
			gotool.Run(t, service, "build", "./...")
			gotool.Run(t, service, "vet", "./...")
			gotool.Run(t, service, "test", "./...")
		}
	}
	got := service
	want := "service"
	if *update {
		if err := os.RemoveAll(want); err != nil {
			t.Fatal(err)
		}
		if err := os.CopyFS(want, os.DirFS(got)); err != nil {
			t.Fatal(err)
		}
		return
	}
	if diff := cmp.Diff(disktest.ReadTree(t, want), disktest.ReadTree(t, got)); diff != "" {
		t.Errorf("the rerun sequence ends with another service than golden/rerun/service (-golden +now); if intended, go test ./golden/rerun -update:\n%s", diff)
	}
}

// stepFields splits a step into its arguments at spaces; an argument in
// double quotes is a Go string, spaces and escapes included.
func stepFields(line string) ([]string, error) {
	var out []string
	for line = strings.TrimSpace(line); line != ""; line = strings.TrimSpace(line) {
		if line[0] != '"' {
			arg, rest, _ := strings.Cut(line, " ")
			out, line = append(out, arg), rest
			continue
		}
		quoted, err := strconv.QuotedPrefix(line)
		if err != nil {
			return nil, err
		}
		arg, _ := strconv.Unquote(quoted)
		out, line = append(out, arg), line[len(quoted):]
	}
	return out, nil
}

// userOwned lists the files gsgen.lock says the user owns.
func userOwned(t *testing.T, service string) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(service, "gsgen.lock"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for line := range strings.SplitSeq(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "user" {
			out[f[2]] = true
		}
	}
	return out
}
