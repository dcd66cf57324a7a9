package generator

import (
	"fmt"

	"github.com/gsgen-dev/gsgen/generator/answers"
	"github.com/gsgen-dev/gsgen/generator/model"
	"github.com/gsgen-dev/gsgen/generator/render"
)

// keepWorkflowChoice is the ci: answer of a re-run, given the service on
// disk. gsgen owns the workflow, but the user decides whether there is one:
//   - the workflow gsgen wrote was deleted since: the user does not want
//     it, so the answer becomes none (gsgen.yaml records it) rather than
//     bringing the file back;
//   - a workflow gsgen did not write is there (a service of an older gsgen,
//     whose gsgen.yaml has no ci: key, with CI of its own): it is the
//     user's, left as it is, and the answer becomes none too.
//
// Either way note says so, for stderr; it is empty when nothing changed.
func (s *Service) keepWorkflowChoice(a answers.Answers) (answers.Answers, string, error) {
	if a.CI != answers.CIGitHub {
		return a, "", nil
	}
	f, err := s.dir.Read(model.CIWorkflowPath)
	if err != nil {
		return a, "", err
	}
	entry, known := s.Lock[model.CIWorkflowPath]
	switch {
	case !f.Exists && known && entry.Owner == render.OwnedByGsgen:
		a.CI = answers.CINone
		return a, fmt.Sprintf("%s: deleted since gsgen wrote it, so gsgen.yaml now says ci: none and regen leaves it out; set ci: github to have it back", model.CIWorkflowPath), nil
	case f.Exists && !known:
		a.CI = answers.CINone
		return a, fmt.Sprintf("%s: gsgen did not write it, so it is yours and stays as it is; gsgen.yaml now says ci: none. To have gsgen's workflow instead, move yours and set ci: github", model.CIWorkflowPath), nil
	}
	return a, "", nil
}
