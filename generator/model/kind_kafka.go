package model

import (
	"fmt"
	"time"

	"github.com/gsgen-dev/gsgen/generator/answers"
	"github.com/gsgen-dev/gsgen/generator/problem"
)

// The kafka kind: named Kafka consumers, each a reader in its consumer
// group with its own handler, Run loops drained with the workers.

// Consumer is one named Kafka consumer (design §4a, §9).
type Consumer struct {
	Name           string // "order-events"
	GoName         string // "OrderEvents"
	FileName       string // "order_events"
	EnvPrefix      string // "KAFKA_ORDER_EVENTS_"
	Topic          string
	Group          string
	HandlerTimeout time.Duration
	// CommitTimeout bounds what follows the handler: the dead-letter write,
	// if any, then the offset commit.
	CommitTimeout   time.Duration
	MaxAttempts     int    // handler runs before a failing message is dead-lettered
	DeadLetterTopic string // "events.dlq"
	BatchSize       int    // messages per transaction and offset commit
}

// DeadLetterHeader is a header a consumer adds to a message it dead-letters,
// beside the message's own: the service's Go constant, its README and the
// tests all read it from here.
type DeadLetterHeader struct {
	Const string // the constant in internal/consumer: "DeadLetterErrorHeader"
	Key   string // "dlq_error"
	What  string // what its value says
}

var kafkaKind = &Kind{Name: Kafka, Chosen: true, What: "Kafka consumers, each a named reader with its own handler", Dirs: []string{"kafka"},
	addFlags: consumerFlags, fromFlags: consumerFromFlags, AddExample: consumerAddExample,
	ask: consumersAsk, addQuestions: consumerQuestions, newInstance: newConsumer, NameHelp: consumerNameHelp,
	Menu:      "Kafka consumers in a consumer group: fetch, handle, commit (kafka-go)",
	Needs:     []Need{NeedsPostgres, NeedsKafka},
	Instances: answers.InstancesOf("consumer", "kafka", func(a *answers.Answers) *[]answers.ConsumerAnswers { return &a.Consumers }),
	defaults:  consumerDefaults,
	on:        func(m *Model) bool { return m.Kafka },
	items:     func(m *Model) []Instance { return instances(m.Consumers) },
	derive:    consumerDerive, bounds: consumerBounds, env: consumerEnv, settings: consumerSettings, panels: consumerPanels, alerts: consumerAlerts,
	pool: consumerPool, names: consumerNames, topics: consumerTopics}

// consumerDefaults fills the consumers' answers not given, and gives kafka
// with none listed one: events, reading the outbox's topic (the outbox's
// defaults, earlier in Kinds, have filled it). The consumers listed
// without kafka get theirs too, for the model to refuse. Kafka brings
// processed_event, one row per event handled, which nothing else prunes:
// it implies the cleaner component, unless the answers list cleaners of
// their own; the cleaner's defaults, after these, give it its cleaners.
func consumerDefaults(a *answers.Answers) {
	if a.HasComponent(Kafka) && len(a.Consumers) == 0 {
		topic := answers.DefaultOutboxTopic
		if a.Outbox.Topic != "" {
			topic = a.Outbox.Topic
		}
		a.Consumers = []answers.ConsumerAnswers{{Name: "events", Topic: topic}}
	}
	for i := range a.Consumers {
		c := &a.Consumers[i]
		answers.SetDefault(&c.Topic, c.Name)
		answers.SetDefault(&c.Group, a.Name+"-"+c.Name)
		answers.SetDefault(&c.HandlerTimeout, answers.Duration(answers.DefaultHandlerTimeout))
		answers.SetDefault(&c.CommitTimeout, answers.Duration(answers.DefaultCommitTimeout))
		answers.SetDefault(&c.MaxAttempts, answers.DefaultMaxAttempts)
		answers.SetDefault(&c.DeadLetterTopic, c.Topic+answers.DeadLetterSuffix)
		answers.SetDefault(&c.BatchSize, answers.DefaultConsumerBatch)
	}
	if a.HasComponent(Kafka) && len(a.Cleaners) == 0 {
		a.ListComponent(Cleaner)
	}
}

// consumerTopics is what each consumer reads and dead-letters to.
func consumerTopics(m *Model) []string {
	var out []string
	for _, c := range m.Consumers {
		out = append(out, c.Topic, c.DeadLetterTopic)
	}
	return out
}

func consumerNames(m *Model) []derived {
	var names []derived
	for i, c := range m.Consumers {
		from, group := fmt.Sprintf("kafka[%d].name", i), fmt.Sprintf("kafka[%d].group", i)
		names = append(names, derived{"Go name", c.GoName + "Consumer", from, c.Name}, derived{"Kafka group", c.Group, group, c.Group})
	}
	return names
}

// consumerPool is each consumer's partitions' transactions: up to
// ConsumerTransactions at once, each on a connection of its own.
func consumerPool(m *Model) []poolShare {
	var out []poolShare
	for _, c := range m.Consumers {
		out = append(out, poolShare{PoolPart: PoolPart{What: "consumer " + c.Name, Conns: ConsumerTransactions}, loop: true})
	}
	return out
}

func consumerBounds(m *Model) []Bound {
	var out []Bound
	for i, c := range m.Consumers {
		// The message in hand at SIGTERM: its handler, then what follows it
		// (dead-letter write and offset commit), which the commit timeout bounds.
		b := Sum([]Term{
			{Name: "consumer " + c.Name + " handler timeout", Field: fmt.Sprintf("kafka[%d].handler_timeout", i), D: c.HandlerTimeout},
			{Name: "commit timeout", Field: fmt.Sprintf("kafka[%d].commit_timeout", i), D: c.CommitTimeout},
		})
		b.LimitName, b.LimitKey, b.Limit = "worker drain", "worker_drain", m.Timeouts.WorkerDrain
		b.Why = "the message in hand at SIGTERM could not finish, be dead-lettered if it failed, and commit before the reader closes"
		out = append(out, b)
	}
	return out
}

func consumerEnv(m *Model) []EnvVar {
	var env []EnvVar
	for i, c := range m.Consumers {
		from := fmt.Sprintf("kafka[%d].", i)
		env = append(env,
			textVar(c.EnvPrefix+"TOPIC", c.Topic, from+"topic"),
			textVar(c.EnvPrefix+"GROUP", c.Group, from+"group"),
			durationVar(c.EnvPrefix+"HANDLER_TIMEOUT", c.HandlerTimeout, from+"handler_timeout"),
			durationVar(c.EnvPrefix+"COMMIT_TIMEOUT", c.CommitTimeout, from+"commit_timeout"),
			countVar(c.EnvPrefix+"MAX_ATTEMPTS", c.MaxAttempts, from+"max_attempts"),
			textVar(c.EnvPrefix+"DLQ_TOPIC", c.DeadLetterTopic, from+"dead_letter_topic"),
			countVar(c.EnvPrefix+"BATCH_SIZE", c.BatchSize, from+"batch_size"),
		)
	}
	return env
}

func consumerSettings(a answers.Answers) []setting {
	var s []setting
	for i, c := range a.Consumers {
		s = append(s,
			duration(fmt.Sprintf("kafka[%d].handler_timeout", i), c.HandlerTimeout, maxTimeout),
			duration(fmt.Sprintf("kafka[%d].commit_timeout", i), c.CommitTimeout, maxTimeout),
			count(fmt.Sprintf("kafka[%d].max_attempts", i), c.MaxAttempts, limits.ConsumerMaxAttempts),
			count(fmt.Sprintf("kafka[%d].batch_size", i), c.BatchSize, limits.ConsumerBatchSize))
	}
	return s
}

func consumerPanels(m *Model) []Panel {
	return []Panel{
		{"Messages handled per second, by consumer", "short", [][2]string{
			{`sum by (consumer) (rate(NS_consumer_messages_handled_total[5m]))`, "{{consumer}}"}}},
		{"Handler failures and dead letters, by consumer", "short", [][2]string{
			{`sum by (consumer) (increase(NS_consumer_handler_failures_total[5m]))`, "{{consumer}} failed calls"},
			{`sum by (consumer) (increase(NS_consumer_messages_dead_lettered_total[5m]))`, "{{consumer}} dead-lettered"}}},
		{"Consumer lag, by consumer", "short", [][2]string{
			{`max by (consumer) (NS_consumer_lag)`, "{{consumer}}"}}},
		{"Handler time, 99th percentile, by consumer", "s", [][2]string{
			{`histogram_quantile(0.99, sum by (le, consumer) (rate(NS_consumer_handler_duration_seconds_bucket[5m])))`, "{{consumer}}"}}},
	}
}

func consumerAlerts(m *Model) []Alert {
	return []Alert{
		{"ConsumerDeadLetters", `sum by (consumer) (increase(NS_consumer_messages_dead_lettered_total[15m])) > 0`, "0m", "warning",
			"A consumer of NAME dead-lettered messages: read them in its dead-letter topic (README.md, What happens to a bad message)."},
		{"ConsumerLagGrowing", `max by (consumer) (NS_consumer_lag) > 1000 and max by (consumer) (deriv(NS_consumer_lag[15m])) > 0`, "15m", "warning",
			"A consumer of NAME falls further behind: its handler is slow or failing, or it has too few partitions for the load."},
	}
}

// deadLetterHeaders are the headers of design §9: why, how many attempts,
// and where the message came from.
var deadLetterHeaders = []DeadLetterHeader{
	{Const: "DeadLetterErrorHeader", Key: "dlq_error", What: "why: the handler's last error, or what is wrong with the event id"},
	{Const: "DeadLetterAttemptsHeader", Key: "dlq_attempts", What: "how many times the handler ran on it; 0 when its event id was unusable"},
	{Const: "SourceTopicHeader", Key: "dlq_source_topic", What: "the topic it was read from"},
	{Const: "SourcePartitionHeader", Key: "dlq_source_partition", What: "its partition there"},
	{Const: "SourceOffsetHeader", Key: "dlq_source_offset", What: "its offset there"},
	{Const: "DeadLetterGroupHeader", Key: "dlq_group", What: "the consumer group that gave up on it"},
}

// consumerDerive validates each consumer's answers and derives it.
func consumerDerive(m *Model, a answers.Answers) error {
	m.DeadLetterHeaders = deadLetterHeaders
	seen := map[string]bool{}
	for i, c := range a.Consumers {
		field := fmt.Sprintf("kafka[%d]", i)
		if err := validateInstanceName(field+".name", c.Name, seen); err != nil {
			return err
		}
		if err := validateConsumer(field, c); err != nil {
			return err
		}
		if err := validateGroup(field+".group", c.Group); err != nil {
			return err
		}
		m.Consumers = append(m.Consumers, Consumer{Name: c.Name, GoName: goName(c.Name), FileName: snake(c.Name),
			EnvPrefix: envPrefix("KAFKA", c.Name), Topic: c.Topic, Group: c.Group, HandlerTimeout: time.Duration(c.HandlerTimeout),
			CommitTimeout: time.Duration(c.CommitTimeout), MaxAttempts: c.MaxAttempts, DeadLetterTopic: c.DeadLetterTopic,
			BatchSize: c.BatchSize})
	}
	return nil
}

// validateGroup holds a consumer group id to Kafka's topic alphabet: Kafka
// itself takes any string, but the id lands in an environment variable, a
// ConfigMap and the README, where a newline or a quote would break them.
func validateGroup(field, group string) error {
	if !topicRE.MatchString(group) || len(group) > 249 {
		return &problem.InputError{Field: field, Msg: problem.Quote(group) + " is not a consumer group id gsgen accepts", Fix: "use letters, digits, '.', '_' and '-' (at most 249), e.g. orders-payments"}
	}
	return nil
}

// validateConsumer checks one consumer's answers beyond its name.
func validateConsumer(field string, c answers.ConsumerAnswers) error {
	if err := validateTopic(field+".topic", c.Topic); err != nil {
		return err
	}
	if err := validateTopic(field+".dead_letter_topic", c.DeadLetterTopic); err != nil {
		return err
	}
	if c.DeadLetterTopic == c.Topic {
		return &problem.InputError{Field: field + ".dead_letter_topic", Msg: fmt.Sprintf("%q is the topic the consumer reads: a failed message would come back to it forever", c.DeadLetterTopic),
			Fix: "use another topic, e.g. " + c.Topic + answers.DeadLetterSuffix}
	}
	// Its timeouts and max_attempts are held to their limits by boundedSettings.
	return nil
}

// consumerNameHelp is the help of a consumer's name at the prompt.
const consumerNameHelp = "names its Run loop, files and env vars (KAFKA_<NAME>_...); lower case, digits and '-'"

// consumersAsk asks gsgen new for each Kafka consumer's name and topic
// until the user has no more.
func consumersAsk(iv Interview, adding bool) error {
	if adding || iv.Answers().Consumers != nil {
		return nil
	}
	first := iv.Defaults().Consumers[0] // the consumer gsgen adds when none is named
	for i := 0; ; i++ {
		def := ""
		if i == 0 {
			def = first.Name
		}
		err := iv.Text(Question{Field: fmt.Sprintf("kafka[%d].name", i), Title: fmt.Sprintf("Kafka consumer %d name", i+1), Def: def,
			Help: consumerNameHelp,
			Set: func(a *answers.Answers, s string) error {
				a.Consumers = append(a.Consumers[:i:i], answers.ConsumerAnswers{Name: s})
				return nil
			}})
		if err != nil {
			return err
		}
		topic := iv.Answers().Consumers[i].Name // a consumer of its own topic by default,
		if iv.Answers().HasComponent(Outbox) {
			topic = iv.Defaults().Outbox.Topic // or of what the relay publishes
		}
		err = iv.Text(Question{Field: fmt.Sprintf("kafka[%d].topic", i), Title: fmt.Sprintf("Kafka consumer %d topic", i+1), Def: topic,
			Help: "the topic it reads in its consumer group",
			Set:  func(a *answers.Answers, s string) error { a.Consumers[i].Topic = s; return nil }})
		if err != nil {
			return err
		}
		more, err := iv.Confirm("Add another Kafka consumer?", false)
		if err != nil || !more {
			return err
		}
	}
}

// consumerQuestions are gsgen add's questions of the new consumer i.
func consumerQuestions(iv Interview, i int, _ *Model) []Question {
	c := iv.Defaults().Consumers[i]
	return []Question{{Field: fmt.Sprintf("kafka[%d].topic", i), Title: "Topic", Def: c.Topic, Help: "the topic it reads in its consumer group",
		Set: func(a *answers.Answers, s string) error { a.Consumers[i].Topic = s; return nil }}}
}

func newConsumer(a answers.Answers, name string) (answers.Answers, error) {
	return a.AddConsumer(answers.ConsumerAnswers{Name: name})
}

// consumerAddExample is a whole gsgen add command of a consumer.
const consumerAddExample = "gsgen add kafka product-events --topic products"

// consumerFlags are gsgen add kafka NAME's flags.
var consumerFlags = []AddFlag{
	{Name: "topic", Type: "string", Usage: "the topic to read (default: NAME)"},
	{Name: "group", Type: "string", Usage: "the consumer group (default: <service>-NAME)"},
	{Name: "handler-timeout", Type: "duration", Positive: true, Usage: "how long one message may take (default 10s); must fit in --worker-drain"},
}

func consumerFromFlags(a answers.Answers, name string, f AddFlagValues) (answers.Answers, error) {
	return a.AddConsumer(answers.ConsumerAnswers{Name: name, Topic: f.String("topic"), Group: f.String("group"), HandlerTimeout: answers.Duration(f.Duration("handler-timeout"))})
}
