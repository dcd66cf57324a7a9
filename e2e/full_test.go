package e2e

import (
	"maps"
	"strconv"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"
	"github.com/twmb/franz-go/pkg/kfake"
)

// fullRig is what a full-preset service needs: its own database, Redis
// database redisDB emptied, and a Kafka cluster with the topic that its
// outbox relay writes and its consumer reads.
type fullRig struct {
	t       *testing.T
	bin     string
	dbURL   string
	pool    *pgxpool.Pool
	brokers string
	kafka   *kfake.Cluster // to make it misbehave
	rdb     *redis.Client
	env     map[string]string
}

func newFullRig(t *testing.T, v *variant) *fullRig {
	t.Helper()
	dir, bin := v.build(t)
	redisAddr, rdb := newRedis(t)
	dbURL, pool := newDatabase(t, dir)
	cluster, brokers := newKafka(t, outboxTopic, deadLetterTopic)
	return &fullRig{t: t, bin: bin, dbURL: dbURL, pool: pool, brokers: brokers, kafka: cluster, rdb: rdb, env: map[string]string{
		"DATABASE_URL":  dbURL,
		"KAFKA_BROKERS": brokers,
		"REDIS_ADDR":    redisAddr,
		"REDIS_DB":      strconv.Itoa(redisDB),
	}}
}

// start runs one process of the service with the rig's environment plus extra.
func (r *fullRig) start(name string, extra map[string]string) *service {
	r.t.Helper()
	env := maps.Clone(r.env)
	maps.Copy(env, extra)
	return start(r.t, name, r.bin, env)
}
