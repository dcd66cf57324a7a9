// Package answers is the spec a user gives gsgen: what a service has, as
// flags, an answers file (gsgen.yaml) or the interview say it. It holds the
// answers' types and their defaults, the edits gsgen add and gsgen remove
// make to them, and the reading and writing of the answers file. It knows
// nothing of the model, the templates or the files a run writes: package
// generator turns answers into a service.
package answers
