package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kafka-bench/kafka_bench_exporter/bench/spec"
	"github.com/kafka-bench/kafka_bench_exporter/config"
)

// TestBenchFiles: the bench files the comparisons write pass the bench's own
// checks and mean what they say.
func TestBenchFiles(t *testing.T) {
	v := &vsRun{partitions: new(9), brokers: []string{"127.0.0.1:9092"}}
	dir := t.TempDir()
	pfile := filepath.Join(dir, "payload.jsonl")
	entry, err := payloadLines(pfile)
	if err != nil {
		t.Fatal(err)
	}
	if entry < 1000 || entry > 1100 {
		t.Errorf("payload lines average %.1f B, want about 1 KiB", entry)
	}

	produce := v.file(1024, "all", 20000, payloadKeys{Kind: "random_letters"}, "none")
	produce.Defaults.Consumer = &consumerKeys{Enabled: new(false)}
	consume := v.file(100, "1", 5000, payloadKeys{Kind: "random_letters"}, "none")
	consume.Defaults.Topic, consume.ConsumeOnly = "fill-100", true
	compressed := v.file(1024, "1", 100, payloadKeys{Kind: "file", File: pfile}, "zstd")
	compressed.DeleteTopics = new(false)
	steady := benchFile{Kafka: kafkaKeys{Brokers: v.brokers}, Duration: "30s", Rate: 1000,
		Defaults: probeKeys{RecordSize: 1024, CreateTopic: &topicKeys{Partitions: 9, ReplicationFactor: 1}}}

	read := func(name string, f benchFile) *spec.Bench {
		t.Helper()
		path := filepath.Join(dir, name+".yml")
		if err := writeYAML(path, f); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		b, err := spec.Parse(data)
		if err != nil {
			t.Fatalf("%s:\n%s\n%v", name, data, err)
		}
		if len(b.Scenarios) != 1 {
			t.Fatalf("%s: %d scenarios, want 1", name, len(b.Scenarios))
		}
		return b
	}
	b := read("produce", produce)
	p := b.Scenarios[0].Probe
	if b.NumRecords != 20000 || p.RecordSize != 1024 || p.Producer.Acks != "all" || p.Producer.LingerMS != lingerMS ||
		p.Producer.BatchSize != batchSize || p.Producer.BufferMemory != bufferMemory || p.Producer.CompressionType != "none" ||
		p.Consumer.Enabled || p.CreateTopic.Partitions != 9 || p.CreateTopic.ReplicationFactor != 1 || b.Kafka.Kafka.Brokers[0] != "127.0.0.1:9092" {
		t.Errorf("produce: %d records, probe %+v", b.NumRecords, p)
	}
	v.payload = new("random_letters")
	b = read("produce-txn", v.txnFile(1024, 20000, txnSettings{id: "txn-ours-1024-1", durationMS: 3000}))
	p = b.Scenarios[0].Probe
	if p.Producer.Acks != "all" || !p.Producer.Idempotent() || !strings.HasPrefix(p.Producer.TransactionalID, "txn-ours-1024-1") ||
		p.Producer.TransactionDurationMS != 3000 || p.Producer.TransactionAbortRatio != 0 || p.Consumer.Enabled ||
		p.RecordSize != 1024 || p.Payload.Kind != "random_letters" || b.NumRecords != 20000 {
		t.Errorf("produce-txn: %d records, probe %+v", b.NumRecords, p)
	}
	b = read("consume", consume)
	if !b.ConsumeOnly || b.Scenarios[0].Probe.Topic != "fill-100" || b.Scenarios[0].Probe.Producer.Acks != "1" {
		t.Errorf("consume: consume_only %v, probe %+v", b.ConsumeOnly, b.Scenarios[0].Probe)
	}
	b = read("compressed", compressed)
	p = b.Scenarios[0].Probe
	if b.DeleteTopics || p.Payload.Kind != "file" || p.Producer.CompressionType != "zstd" {
		t.Errorf("compressed: delete_topics %v, probe %+v", b.DeleteTopics, p)
	}
	b = read("steady", steady)
	p = b.Scenarios[0].Probe
	if b.Duration.Seconds() != 30 || b.NumRecords != 0 || p.Rate != 1000 || !p.Consumer.Enabled || p.Producer.Acks != "all" {
		t.Errorf("steady: duration %v, probe %+v", b.Duration, p)
	}
}

// TestConfigFiles: the daemon's configuration files of footprint and
// replication load as the exporter loads them.
func TestConfigFiles(t *testing.T) {
	extra, err := parseExtra("producer: {linger.ms: 20}, round_interval: 0s")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := parseExtra("producer: {"); err == nil {
		t.Error("parseExtra accepted broken YAML")
	}
	dir := t.TempDir()
	read := func(f configFile) *config.Config {
		t.Helper()
		path := filepath.Join(dir, "config.yml")
		if err := writeYAML(path, f); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		c, err := config.Parse(data)
		if err != nil {
			t.Fatalf("%s\n%v", data, err)
		}
		return c
	}
	// consumer: merged with the probe's group.id, not replacing it.
	extra["consumer"] = map[string]any{"fetch.min.bytes": 2}
	probe, err := withExtra(probeKeys{Name: "footprint", Topic: "footprint-30-128", Rate: 30, RecordSize: 128,
		Consumer: &consumerKeys{GroupID: "footprint-30-128"}}, extra)
	if err != nil {
		t.Fatal(err)
	}
	c := read(configFile{Kafka: kafkaKeys{Brokers: []string{"127.0.0.1:9092"}}, Probes: []any{probe}})
	p := c.Probes[0]
	if p.Rate != 30 || p.RecordSize != 128 || p.Topic != "footprint-30-128" || p.Consumer.GroupID != "footprint-30-128" ||
		!p.Consumer.Enabled || p.Producer.LingerMS != 20 || p.RoundInterval != 0 || p.Consumer.FetchMinBytes != 2 {
		t.Errorf("footprint probe: %+v", p)
	}
	c = read(configFile{Kafka: kafkaKeys{Brokers: []string{"127.0.0.1:9092"}}, Probes: []any{probeKeys{Name: "repl-200", Rate: 200,
		LagInterval: "1s", CreateTopic: &topicKeys{Partitions: 3, ReplicationFactor: 1},
		Replica: &replicaKeys{Kafka: kafkaKeys{Brokers: []string{"127.0.0.1:9192"}}, SourceAlias: "A", TargetAlias: "B"}}}})
	p = c.Probes[0]
	if p.Replica == nil || p.Replica.Kafka.Brokers[0] != "127.0.0.1:9192" || p.Replica.SourceAlias != "A" || p.LagInterval.String() != "1s" || p.CreateTopic.Partitions != 3 {
		t.Errorf("replication probe: %+v", p)
	}
}

// TestWorkersFile: the bench file of workers, as bench-workers.sh wrote it.
func TestWorkersFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bench.yml")
	if err := writeYAML(path, workersFile{Kafka: kafkaKeys{Brokers: []string{"127.0.0.1:9092"}}, Duration: "20s", WarmupRecords: 1000,
		Rate: 20000, DrainTimeout: "20s", Defaults: probeKeys{RecordSize: 100, CreateTopic: &topicKeys{Partitions: 6}, Producer: &producerKeys{Acks: "1"}}}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b, err := spec.Parse(data)
	if err != nil {
		t.Fatalf("%s\n%v", data, err)
	}
	p := b.Scenarios[0].Probe
	if b.Duration.Seconds() != 20 || b.WarmupRecords != 1000 || b.DrainTimeout.Seconds() != 20 || p.Rate != 20000 ||
		p.RecordSize != 100 || p.CreateTopic.Partitions != 6 || p.Producer.Acks != "1" || p.Producer.LingerMS == 0 {
		t.Errorf("workers: %+v, probe %+v (linger.ms must keep its default)", b, p)
	}
}
