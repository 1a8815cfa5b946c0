// Command kafka-mirror runs a real MirrorMaker 2 in dedicated mode (see
// package kafkatest) that copies topics from one cluster to another, prints
// READY on stdout once the JVM runs, and runs until SIGINT or SIGTERM, then
// stops it and removes its directory.
//
//	go run ./internal/kafkatest/cmd/kafka-mirror -source 127.0.0.1:9092 -target 127.0.0.1:9192 -topics 'kafka-bench-.*'
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

func main() {
	log.SetFlags(0)
	log.SetPrefix("kafka-mirror: ")
	source := flag.String("source", "", "bootstrap list of the source cluster (required)")
	target := flag.String("target", "", "bootstrap list of the target cluster (required)")
	sourceAlias := flag.String("source-alias", "A", "the source's alias: topic T is copied as <alias>.T")
	targetAlias := flag.String("target-alias", "B", "the target's alias")
	topics := flag.String("topics", ".*", "regex list of the source topics to copy")
	timeout := flag.Duration("start-timeout", 3*time.Minute, "give up if MirrorMaker 2 has not started by then")
	flag.Parse()
	if *source == "" || *target == "" {
		log.Fatal("-source and -target are required")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	startCtx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	m, err := kafkatest.StartMirrorMaker(startCtx, kafkatest.MirrorOptions{
		Source: strings.Split(*source, ","), Target: strings.Split(*target, ","),
		SourceAlias: *sourceAlias, TargetAlias: *targetAlias, Topics: *topics,
	}, log.Printf)
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()
	fmt.Println("READY")
	<-ctx.Done()
	log.Printf("stopping")
	if err := m.Stop(); err != nil {
		log.Print(err)
	}
}
