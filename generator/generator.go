// Package generator turns answers into a service: answers → validated Model →
// FilePlan (which template becomes which path, and who owns it) → Rendered
// files in memory → Changes written atomically. No step reaches back into an
// earlier one, and nothing touches the disk before every file has rendered.
package generator

// Generate runs the pipeline up to the bytes: it validates the answers
// (defaults already applied), plans the files and renders them in memory.
func Generate(a Answers) (*Model, Rendered, error) {
	m, err := NewModel(a)
	if err != nil {
		return nil, nil, err
	}
	plan, err := Plan(m)
	if err != nil {
		return nil, nil, err
	}
	files, err := Render(m, plan)
	if err != nil {
		return nil, nil, err
	}
	return m, files, nil
}
