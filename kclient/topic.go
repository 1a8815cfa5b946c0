package kclient

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/kafka-bench/kafka_bench_exporter/config"
)

// waitTopicEvery is how often WaitTopic describes the topic again.
const waitTopicEvery = 100 * time.Millisecond

// CreateTopic creates topic with the partitions, replication factor and
// configs of ct (whether ct is enabled is the caller's business). A topic
// that exists already is no error: created says whether this call made it.
func CreateTopic(ctx context.Context, adm *kadm.Client, topic string, ct config.CreateTopic) (created bool, err error) {
	configs := make(map[string]*string, len(ct.Configs))
	for k, v := range ct.Configs {
		configs[k] = &v
	}
	resp, err := adm.CreateTopic(ctx, ct.Partitions, ct.ReplicationFactor, configs, topic)
	if err == nil {
		err = resp.Err
	}
	if errors.Is(err, kerr.TopicAlreadyExists) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("creating topic %q: %w", topic, err)
	}
	return true, nil
}

// DescribeTopic describes topic. A missing topic is
// kerr.UnknownTopicOrPartition; one without partitions yet (just created)
// is an error too.
func DescribeTopic(ctx context.Context, adm *kadm.Client, topic string) (kadm.TopicDetail, error) {
	tds, err := adm.ListTopics(ctx, topic)
	if err != nil {
		return kadm.TopicDetail{}, err
	}
	td, ok := tds[topic]
	if !ok {
		return kadm.TopicDetail{}, kerr.UnknownTopicOrPartition
	}
	if td.Err != nil {
		return td, td.Err
	}
	if len(td.Partitions) == 0 {
		return td, fmt.Errorf("topic %q has no partitions yet", topic)
	}
	return td, nil
}

// WaitTopic describes topic until ok holds of it. When ctx ends first it
// returns the last description and the last error (ctx's if the topic was
// described).
func WaitTopic(ctx context.Context, adm *kadm.Client, topic string, ok func(kadm.TopicDetail) bool) (kadm.TopicDetail, error) {
	for {
		td, err := DescribeTopic(ctx, adm, topic)
		if err == nil && ok(td) {
			return td, nil
		}
		select {
		case <-ctx.Done():
			if err == nil {
				err = ctx.Err()
			}
			return td, err
		case <-time.After(waitTopicEvery):
		}
	}
}

// Led reports whether every partition of td has a leader, so that no first
// record waits for an election.
func Led(td kadm.TopicDetail) bool {
	for _, pd := range td.Partitions {
		if pd.Err != nil || pd.Leader < 0 {
			return false
		}
	}
	return true
}
