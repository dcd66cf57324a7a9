package generator

import "github.com/gsgen-dev/gsgen/generator/answers"

// The answers live in package answers: these aliases keep generator's
// callers (cmd/gsgen, lab, vet, space, timeline, e2e, golden) compiling
// while they name generator; each can go once its callers name answers.
type (
	Answers         = answers.Answers
	OutboxAnswers   = answers.OutboxAnswers
	AsynqAnswers    = answers.AsynqAnswers
	ConsumerAnswers = answers.ConsumerAnswers
	CleanerAnswers  = answers.CleanerAnswers
	WorkerAnswers   = answers.WorkerAnswers
	TaskAnswers     = answers.TaskAnswers
	TimeoutAnswers  = answers.TimeoutAnswers
	HTTPAnswers     = answers.HTTPAnswers
	GRPCAnswers     = answers.GRPCAnswers
	Duration        = answers.Duration
	TimeoutField    = answers.TimeoutField
	Instances       = answers.Instances
)

// Default answers: answers' constants.
const (
	DefaultComponents        = answers.DefaultComponents
	DefaultHTTPPort          = answers.DefaultHTTPPort
	DefaultAdminPort         = answers.DefaultAdminPort
	DefaultOutboxRelays      = answers.DefaultOutboxRelays
	DefaultOutboxTopic       = answers.DefaultOutboxTopic
	DefaultOutboxBatchSize   = answers.DefaultOutboxBatchSize
	DefaultAsynqMode         = answers.DefaultAsynqMode
	DefaultConcurrency       = answers.DefaultConcurrency
	DefaultCleanerBatch      = answers.DefaultCleanerBatch
	DefaultMaxAttempts       = answers.DefaultMaxAttempts
	DefaultConsumerBatch     = answers.DefaultConsumerBatch
	DeadLetterSuffix         = answers.DeadLetterSuffix
	DefaultOutboxMaxAttempts = answers.DefaultOutboxMaxAttempts
	DefaultTaskMaxRetry      = answers.DefaultTaskMaxRetry
	DefaultQueue             = answers.DefaultQueue
	ScopeFleet               = answers.ScopeFleet
	ScopeReplica             = answers.ScopeReplica
	DefaultLeaseTTL          = answers.DefaultLeaseTTL
	CIGitHub                 = answers.CIGitHub
	CINone                   = answers.CINone
)

// DefaultTimeouts is answers.DefaultTimeouts: the ladder of design §6.
var DefaultTimeouts = answers.DefaultTimeouts

// TimeoutFields is answers.TimeoutFields.
var TimeoutFields = answers.TimeoutFields

// The default durations generator's contract and flags read.
var (
	defaultPollInterval     = answers.DefaultPollInterval
	defaultBatchTimeout     = answers.DefaultBatchTimeout
	defaultBackoffMin       = answers.DefaultBackoffMin
	defaultBackoffMax       = answers.DefaultBackoffMax
	defaultHandlerTimeout   = answers.DefaultHandlerTimeout
	defaultCommitTimeout    = answers.DefaultCommitTimeout
	defaultRetention        = answers.DefaultRetention
	processedEventRetention = answers.ProcessedEventRetention
)

// DefaultModule is answers.DefaultModule.
func DefaultModule(name string) string { return answers.DefaultModule(name) }

// NewCleaner is answers.NewCleaner.
func NewCleaner(a Answers, name string) CleanerAnswers { return answers.NewCleaner(a, name) }

// TimestampColumn is answers.TimestampColumn.
func TimestampColumn(table, column string) string { return answers.TimestampColumn(table, column) }

// Retries is answers.Retries: a TaskAnswers.MaxRetry of n.
func Retries(n int) *int { return answers.Retries(n) }

// gsgenTable is a table gsgen's own migrations define; gsgenTables lists
// them in the order of their migrations.
type gsgenTable = answers.OwnTable

var gsgenTables = answers.OwnTables

func gsgenTableNamed(table string) (gsgenTable, bool) { return answers.OwnTableNamed(table) }

// The answers file: answers' constants and functions.
const (
	AnswersFile   = answers.AnswersFile
	AnswersFormat = answers.AnswersFormat
)

// ParseAnswersFile is answers.ParseAnswersFile.
func ParseAnswersFile(name string, data []byte) (Answers, error) {
	return answers.ParseAnswersFile(name, data)
}

// MigrateAnswersFile is answers.MigrateAnswersFile.
func MigrateAnswersFile(name string, data []byte) (a Answers, notes []string, err error) {
	return answers.MigrateAnswersFile(name, data)
}

// MarshalAnswersFile is answers.MarshalAnswersFile.
func MarshalAnswersFile(a Answers) ([]byte, error) { return answers.MarshalAnswersFile(a) }

// SplitList is answers.SplitList.
func SplitList(s string) []string { return answers.SplitList(s) }
