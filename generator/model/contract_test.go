package model

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// docs are README.md and docs/*.md, each with its whitespace runs made one
// space, so that a statement may wrap.
func docs(t *testing.T) map[string]string {
	t.Helper()
	names, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, name := range append([]string{"../../README.md"}, names...) {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		out[strings.TrimPrefix(name, "../../")] = strings.Join(strings.Fields(string(b)), " ")
	}
	return out
}

// Every number the docs state is the table's: each pattern of a number is
// found at least once (a pattern that matches nothing proves nothing), and
// wherever it is found the docs write the table's value.
func TestContractIsWhatTheDocsSay(t *testing.T) {
	texts := docs(t)
	for _, n := range Contract {
		for _, p := range n.Docs {
			re := regexp.MustCompile(p)
			found := 0
			for name, text := range texts {
				for _, m := range re.FindAllStringSubmatch(text, -1) {
					found++
					if !slices.Contains(n.Spellings(), m[1]) {
						t.Errorf("%s says %q: %s is %s in the contract (generator/model/contract.go)", name, m[0], n.Key, n.Text())
					}
				}
			}
			if found == 0 {
				t.Errorf("%s: no doc says /%s/ any more: fix the pattern or the doc", n.Key, p)
			}
		}
	}
}

// README.md lists the whole table, row by row in its order: a number added,
// changed or dropped in the code is one the README must follow.
func TestContractTableInTheREADME(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `([a-z_.]+)` \\| `([^`]*)` \\| (.*) \\|$")
	start := strings.Index(string(b), "### The contract's numbers")
	if start < 0 {
		t.Fatal(`README.md has no "### The contract's numbers" section`)
	}
	section := string(b[start:])
	if end := strings.Index(section[4:], "\n### "); end >= 0 {
		section = section[:end+4]
	}
	var got, want []string
	for _, m := range row.FindAllStringSubmatch(section, -1) {
		got = append(got, m[1]+" = "+m[2]+" ("+m[3]+")")
	}
	for _, n := range Contract {
		want = append(want, n.Key+" = "+n.Text()+" ("+n.What+")")
	}
	if !slices.Equal(got, want) {
		t.Errorf("README.md's contract table is not generator.Contract; want these rows:\n%s", strings.Join(readmeRows(), "\n"))
	}
}

// readmeRows is the README's table as it should be.
func readmeRows() []string {
	rows := []string{"| number | value | what |", "| --- | --- | --- |"}
	for _, n := range Contract {
		rows = append(rows, "| `"+n.Key+"` | `"+n.Text()+"` | "+n.What+" |")
	}
	return rows
}

// The table is well formed: keys are unique, each value is of a kind the
// docs can spell, and a template reading a key that is not there fails.
func TestContractIsWellFormed(t *testing.T) {
	seen := map[string]bool{}
	for _, n := range Contract {
		if seen[n.Key] {
			t.Errorf("%s is in the contract twice", n.Key)
		}
		seen[n.Key] = true
		switch n.Value.(type) {
		case time.Duration, int, Share:
		default:
			t.Errorf("%s is a %T; the contract holds durations, counts and shares", n.Key, n.Value)
		}
		if n.What == "" {
			t.Errorf("%s does not say what it is", n.Key)
		}
	}
	m := &Model{}
	if v, err := m.Contract("outbox.slots"); err != nil || v != OutboxSlots {
		t.Errorf(`Contract("outbox.slots") = %v, %v`, v, err)
	}
	if _, err := m.Contract("outbox.slot"); err == nil {
		t.Error("an unknown key was read")
	}
}

func TestShareOf(t *testing.T) {
	for _, c := range []struct {
		s    Share
		want string
	}{{Share{1, 3}, "ttl / 3"}, {Share{3, 4}, "ttl * 3 / 4"}} {
		if got := c.s.Of("ttl"); got != c.want {
			t.Errorf("%v.Of(ttl) = %q, want %q", c.s, got, c.want)
		}
	}
	ttl := 15 * time.Second
	if got := ttl * time.Duration(LeaseKeepShare.Num) / time.Duration(LeaseKeepShare.Den); got != 11250*time.Millisecond {
		t.Errorf("three quarters of 15s = %v", got)
	}
}

// gsgen's migrations are plain SQL (schema.go reads them unrendered), so the
// slots migration cannot read the table: it is held to it here instead.
func TestSlotsMigrationSaysTheContractsSlots(t *testing.T) {
	own, err := templateMigrations()
	if err != nil {
		t.Fatal(err)
	}
	b := string(own[Outbox]["db/migrations/0004_outbox_slots.sql"])
	for _, want := range []string{"one of " + strconv.Itoa(OutboxSlots) + " slots", "modulo " + strconv.Itoa(OutboxSlots) + ","} {
		if !strings.Contains(b, want) {
			t.Errorf("db/migrations/0004_outbox_slots.sql does not say %q:\n%s", want, b)
		}
	}
}
