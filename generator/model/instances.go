package model

// InstanceNames are the names a named instance (a consumer, a cleaner, a
// worker, a task) goes by: the one the user gave it, its files' (what
// _item_ in a template's path becomes) and the one its Go identifiers are
// built from.
type InstanceNames struct{ Name, File, GoName string }

// Instance is a named instance of a component (a Consumer, CleanerJob,
// WorkerJob or TaskType of the model's), as a planned file holds it for its
// templates.
type Instance interface{ Names() InstanceNames }

// Names is the consumer's names.
func (c Consumer) Names() InstanceNames { return InstanceNames{c.Name, c.FileName, c.GoName} }

// Names is the cleaner's names.
func (c CleanerJob) Names() InstanceNames { return InstanceNames{c.Name, c.FileName, c.GoName} }

// Names is the worker's names.
func (w WorkerJob) Names() InstanceNames { return InstanceNames{w.Name, w.FileName, w.GoName} }

// Names is the task's names: a task is named by its type.
func (t TaskType) Names() InstanceNames { return InstanceNames{t.Type, t.FileName, t.GoName} }
