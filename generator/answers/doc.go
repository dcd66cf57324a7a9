// Package answers is the spec a user gives gsgen: what a service has, as
// flags, an answers file (gsgen.yaml) or the interview say it. It holds the
// answers' types and their defaults, the edits gsgen add and gsgen remove
// make to them, and the reading and writing of the answers file. It knows
// nothing of the model, the templates or the files a run writes: package
// generator turns answers into a service.
//
// The kinds of part are model's (model.Kinds); their spec side
// (name, named instances, defaults, what remove forgets) reaches this
// package through Register, which model calls for every kind, in
// order, when it is loaded. Until then answers knows no component: its
// own tests use only what needs none (the answers file, the defaults of
// the components that are not hooks).
package answers
