// Command kafka-cluster starts a real Kafka cluster on 127.0.0.1 (see package
// kafkatest), prints BOOTSTRAP=host:port,... on stdout and runs until SIGINT
// or SIGTERM, then kills the JVMs and removes their directories.
//
//	go run ./internal/kafkatest/cmd/kafka-cluster -nodes 3 -config log.segment.bytes=1048576
//
// Progress and timing go to stderr so that stdout carries only the
// BOOTSTRAP= and STARTUP= lines for scripts to read.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/kafka-bench/kafka_bench_exporter/internal/kafkatest"
)

// configFlags collects repeated -config k=v flags.
type configFlags map[string]string

func (c configFlags) String() string { return fmt.Sprint(map[string]string(c)) }

func (c configFlags) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	if !ok || k == "" {
		return fmt.Errorf("want key=value, got %q", s)
	}
	c[k] = v
	return nil
}

// jvmFlags collects repeated -jvm flags.
type jvmFlags []string

func (j *jvmFlags) String() string { return strings.Join(*j, " ") }

func (j *jvmFlags) Set(s string) error { *j = append(*j, s); return nil }

func main() {
	log.SetFlags(0)
	log.SetPrefix("kafka-cluster: ")
	cfg := configFlags{}
	nodes := flag.Int("nodes", 1, "number of broker+controller nodes (1 or 3)")
	heap := flag.Int("heap-mb", 512, "JVM heap per node in MiB")
	timeout := flag.Duration("start-timeout", 3*time.Minute, "give up if the cluster is not up by then")
	var jvm jvmFlags
	flag.Var(&jvm, "jvm", "extra broker JVM flag (repeatable)")
	flag.Var(cfg, "config", "extra server.properties entry k=v for every node (repeatable)")
	flag.Parse()

	// Signals are caught from the start so that a Ctrl-C during start-up
	// still cleans up (the JVMs are in their own process groups).
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	startCtx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()

	began := time.Now()
	c, err := kafkatest.StartCluster(startCtx, kafkatest.Options{Nodes: *nodes, BrokerConfig: cfg, HeapMB: *heap, JVMFlags: jvm}, log.Printf)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	took := time.Since(began)
	fmt.Printf("BOOTSTRAP=%s\n", strings.Join(c.Bootstrap(), ","))
	fmt.Printf("STARTUP=%.3fs\n", took.Seconds())
	for i := range c.Nodes() {
		log.Printf("node %d: %s, log %s", c.NodeID(i), c.Bootstrap()[i], c.Logs(i))
	}
	log.Printf("up in %v; Ctrl-C or SIGTERM to stop", took.Round(time.Millisecond))
	<-ctx.Done()
	log.Printf("stopping")
}
