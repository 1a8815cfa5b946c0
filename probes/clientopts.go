package probes

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
	"github.com/twmb/franz-go/plugin/kprom"

	"github.com/kafka-bench/kafka_bench_exporter/config"
)

// Client roles, the `role` label of the kprom client metrics.
const (
	RoleProducer = "producer"
	RoleConsumer = "consumer"
	RoleAdmin    = "admin"
)

// metadataMinAge bounds how often a client may refresh metadata.
const metadataMinAge = 250 * time.Millisecond

// ConnOpts say how to reach and authenticate to the cluster: seeds, client
// id, TLS (kafka.tls) and SASL (kafka.sasl). Every client of a probe uses
// them, and so can other clients of the exporter (bench mode's admin).
func ConnOpts(k config.Kafka) ([]kgo.Opt, error) {
	opts := []kgo.Opt{kgo.SeedBrokers(k.Brokers...), kgo.ClientID(k.ClientID)}
	tc, err := k.TLS.ClientConfig()
	if err != nil {
		return nil, err
	}
	if tc != nil {
		// franz-go sets ServerName to the dialled host when it is empty.
		opts = append(opts, kgo.DialTLSConfig(tc))
	}
	user, pass := k.SASL.Username, k.SASL.Secret().Reveal()
	switch k.SASL.Mechanism {
	case config.SASLPlain:
		opts = append(opts, kgo.SASL(plain.Auth{User: user, Pass: pass}.AsMechanism()))
	case config.SASLScramSHA256:
		opts = append(opts, kgo.SASL(scram.Auth{User: user, Pass: pass}.AsSha256Mechanism()))
	case config.SASLScramSHA512:
		opts = append(opts, kgo.SASL(scram.Auth{User: user, Pass: pass}.AsSha512Mechanism()))
	case "":
	default:
		return nil, fmt.Errorf("kafka.sasl.mechanism %q is not supported", k.SASL.Mechanism)
	}
	return opts, nil
}

// commonOpts are shared by every client of a probe: the connection, logs
// and kprom metrics labelled with the probe, the role and the member index
// (a probe has several consumer clients).
func commonOpts(k config.Kafka, reg prometheus.Registerer, logger *slog.Logger, probe, role, member string) ([]kgo.Opt, error) {
	opts, err := ConnOpts(k)
	if err != nil {
		return nil, err
	}
	opts = append(opts,
		kgo.WithLogger(newSlogAdapter(logger.With("probe", probe, "role", role))),
		// Reconnect quickly when a broker returns: the probe should see it
		// as soon as clients do, not after a long backoff.
		kgo.RetryBackoffFn(func(tries int) time.Duration {
			return min(time.Duration(tries)*100*time.Millisecond, time.Second)
		}),
		// After NOT_LEADER_OR_FOLLOWER (a leader moved, or a new topic not
		// yet loaded by its broker) franz-go refreshes metadata no sooner
		// than this after the last refresh; its default of 5 s held every
		// record of the partition 5 s where the Java client retries after
		// 100 ms.
		kgo.MetadataMinAge(metadataMinAge),
	)
	if reg != nil {
		labels := prometheus.Labels{"probe": probe, "role": role, "member": member}
		m := kprom.NewMetrics("kafka_bench_client",
			kprom.Registerer(newKpromRegisterer(reg, labels)),
			kprom.WithStaticLabel(labels),
			kprom.Histograms(kprom.RequestDurationE2E),
		)
		opts = append(opts, kgo.WithHooks(m))
	}
	return opts, nil
}

// producerOpts maps the Kafka producer properties onto franz-go; the table
// in README.md ("Kafka property mapping") mirrors this function.
func producerOpts(p config.Probe) []kgo.Opt {
	pr := p.Producer
	opts := []kgo.Opt{
		kgo.DefaultProduceTopic(p.Topic),
		// The probe chooses partitions itself, round-robin, so every
		// partition and so every leader broker is exercised.
		kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.ProducerLinger(time.Duration(pr.LingerMS) * time.Millisecond),
		// Kafka sends a record larger than batch.size in a batch of its
		// own; franz-go would fail it, so the batch limit fits one record.
		kgo.ProducerBatchMaxBytes(int32(max(pr.BatchSize, p.RecordSize+config.BatchOverhead))),
		kgo.MaxBufferedBytes(int(pr.BufferMemory)),
		// Java bounds the buffer by bytes only; franz-go also by records
		// (10,000 by default), which would cap small records too early.
		kgo.MaxBufferedRecords(int(pr.BufferMemory/int64(p.RecordSize)) + 1),
		kgo.ProduceRequestTimeout(time.Duration(pr.RequestTimeoutMS) * time.Millisecond),
		kgo.RecordDeliveryTimeout(time.Duration(pr.DeliveryTimeoutMS) * time.Millisecond),
		kgo.ProducerBatchCompression(compression(pr.CompressionType)),
	}
	if pr.Retries < 2147483647 {
		opts = append(opts, kgo.RecordRetries(pr.Retries))
	}
	switch pr.Acks {
	case "0":
		opts = append(opts, kgo.RequiredAcks(kgo.NoAck()))
	case "1":
		opts = append(opts, kgo.RequiredAcks(kgo.LeaderAck()))
	default:
		opts = append(opts, kgo.RequiredAcks(kgo.AllISRAcks()))
	}
	if !pr.Idempotent() {
		opts = append(opts, kgo.DisableIdempotentWrite(), kgo.MaxProduceRequestsInflightPerBroker(pr.MaxInFlight))
	}
	return opts
}

func compression(name string) kgo.CompressionCodec {
	switch name {
	case "gzip":
		return kgo.GzipCompression()
	case "snappy":
		return kgo.SnappyCompression()
	case "lz4":
		return kgo.Lz4Compression()
	case "zstd":
		return kgo.ZstdCompression()
	}
	return kgo.NoCompression()
}

// consumerOpts maps the Kafka consumer properties onto franz-go. Offsets are
// committed by the probe itself (to time the commits), after processing.
func consumerOpts(p config.Probe, onRevoked func(context.Context, *kgo.Client, map[string][]int32)) []kgo.Opt {
	c := p.Consumer
	reset := kgo.NewOffset().AtStart()
	if c.AutoOffsetReset == "latest" {
		reset = kgo.NewOffset().AtEnd()
	}
	return []kgo.Opt{
		kgo.ConsumerGroup(c.GroupID),
		kgo.ConsumeTopics(p.Topic),
		kgo.DisableAutoCommit(),
		kgo.BlockRebalanceOnPoll(),
		kgo.OnPartitionsRevoked(onRevoked),
		kgo.ConsumeResetOffset(reset),
		kgo.FetchMinBytes(c.FetchMinBytes),
		kgo.FetchMaxBytes(c.FetchMaxBytes),
		kgo.FetchMaxPartitionBytes(c.MaxPartitionFetchBytes),
		kgo.FetchMaxWait(time.Duration(c.FetchMaxWaitMS) * time.Millisecond),
		kgo.SessionTimeout(time.Duration(c.SessionTimeoutMS) * time.Millisecond),
		kgo.HeartbeatInterval(time.Duration(c.HeartbeatIntervalMS) * time.Millisecond),
	}
}

// slogAdapter lets franz-go log through the exporter's logger. franz-go warns
// on every failed connection attempt, which floods the log while a broker is
// away; its info and warn lines go to debug and the probe logs state changes
// itself. Its errors repeat at every retry too (a wrong password: every
// reconnect), so each message is a WARN at most once a minute per client,
// and debug otherwise.
type slogAdapter struct {
	l     *slog.Logger
	limit *logLimit
}

func newSlogAdapter(l *slog.Logger) slogAdapter {
	return slogAdapter{l: l, limit: &logLimit{last: map[string]time.Time{}}}
}

func (a slogAdapter) Level() kgo.LogLevel {
	if a.l.Enabled(context.Background(), slog.LevelDebug) {
		return kgo.LogLevelInfo
	}
	return kgo.LogLevelError
}

func (a slogAdapter) Log(level kgo.LogLevel, msg string, keyvals ...any) {
	if level == kgo.LogLevelError && a.limit.allow(msg, time.Now()) {
		a.l.Warn(msg, keyvals...)
		return
	}
	a.l.Debug(msg, keyvals...)
}

// logLimit lets each message through once a minute.
type logLimit struct {
	mu   sync.Mutex
	last map[string]time.Time // bounded: franz-go's messages are constants
}

func (l *logLimit) allow(msg string, now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.last[msg]) < time.Minute {
		return false
	}
	l.last[msg] = now
	return true
}
