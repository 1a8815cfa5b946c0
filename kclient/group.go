package kclient

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kadm"
)

// CommitEnds commits topic's current end offsets for group, except on the
// partitions skip says to leave alone, so the group's consumers start at
// the end instead of reading an old backlog or (for a new group with
// auto.offset.reset=latest) missing the first records of this run.
func CommitEnds(ctx context.Context, adm *kadm.Client, topic, group string, skip func(partition int32) bool) error {
	ends, err := adm.ListEndOffsets(ctx, topic)
	if err != nil {
		return fmt.Errorf("listing end offsets of %q: %w", topic, err)
	}
	toCommit := kadm.Offsets{}
	for part, end := range ends[topic] {
		if end.Err != nil {
			return fmt.Errorf("end offset of %q partition %d: %w", topic, part, end.Err)
		}
		if skip != nil && skip(part) {
			continue
		}
		toCommit.Add(kadm.Offset{Topic: topic, Partition: part, At: end.Offset, LeaderEpoch: -1})
	}
	if len(toCommit) == 0 {
		return nil
	}
	resp, err := adm.CommitOffsets(ctx, group, toCommit)
	if err == nil {
		err = resp.Error()
	}
	if err != nil {
		return fmt.Errorf("setting the start offsets of group %q: %w", group, err)
	}
	return nil
}
