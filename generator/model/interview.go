package model

import "github.com/gsgen-dev/gsgen/generator/answers"

// Question is one answer an interview asks as text. A kind declares the
// questions of its answers (Kind.Ask, Kind.AddQuestions); the prompt of
// gsgen new and gsgen add asks them, checking each answer with the model as
// it is typed, so a prompt refuses exactly what an answers file would.
type Question struct {
	Field string // answers path, as the model's errors name it: "outbox.topic", "kafka[1].topic"
	Title string
	Help  string
	Def   string
	// Offer, when set, is the default instead of Def, worked out when the
	// question is asked: from the answers before it.
	Offer func() string
	// When, when set, says whether the question is asked at all, from the
	// answers before it (a time zone only for a cron schedule).
	When func() bool
	// Also names the other answers an answer to it may be refused on: one
	// schedule question sets an interval or a cron schedule.
	Also []string
	Set  func(a *answers.Answers, s string) error // parses s into a
}

// Interview is what a kind's questions are asked through: the prompt.
type Interview interface {
	// Answers is what is known so far (zero is unanswered), which the
	// questions' Set and a kind's choices write into.
	Answers() *answers.Answers
	// Defaults is the answers so far with every gap filled: the values
	// offered.
	Defaults() answers.Answers
	// Text asks q until the answer parses and the model accepts it, then
	// sets it.
	Text(q Question) error
	// Confirm asks a yes or no question.
	Confirm(title string, def bool) (bool, error)
	// ChooseOne asks for one of options (each a value and its one-line
	// description), offering def.
	ChooseOne(title, help string, options [][2]string, def string) (string, error)
}

// Ask asks the questions of k that the answers leave unanswered: gsgen
// new's, or with adding, gsgen add's when it adds k to a service; nil for a
// kind whose only questions are its flags' (KindFlag.Title).
func (k *Kind) Ask(iv Interview, adding bool) error {
	if k.ask == nil {
		return nil
	}
	return k.ask(iv, adding)
}

// AddQuestions are the questions of the new instance i of k that gsgen add
// asks once its name is given, each offering what the defaults give;
// service is the service before the instance was added.
func (k *Kind) AddQuestions(iv Interview, i int, service *Model) []Question {
	if k.addQuestions == nil {
		return nil
	}
	return k.addQuestions(iv, i, service)
}

// AddInstance returns a with a new instance of k called name, its other
// answers left to its defaults and its questions.
func (k *Kind) AddInstance(a answers.Answers, name string) (answers.Answers, error) {
	return k.newInstance(a, name)
}
