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
	ends, err := listOffsets(ctx, adm.ListEndOffsets, "end", topic)
	if err != nil {
		return err
	}
	return commitPicked(ctx, adm, topic, group, ends, nil, func(part int32, _, end int64) (int64, bool) {
		return end, skip == nil || !skip(part)
	})
}

// CommitStarts commits, on each partition of topic where pick says so, the
// offset pick chooses from the partition's start (log start) and end
// offsets, so the group's consumers start there.
func CommitStarts(ctx context.Context, adm *kadm.Client, topic, group string, pick func(partition int32, start, end int64) (at int64, ok bool)) error {
	ends, err := listOffsets(ctx, adm.ListEndOffsets, "end", topic)
	if err != nil {
		return err
	}
	starts, err := listOffsets(ctx, adm.ListStartOffsets, "start", topic)
	if err != nil {
		return err
	}
	return commitPicked(ctx, adm, topic, group, ends, starts, pick)
}

func listOffsets(ctx context.Context, list func(context.Context, ...string) (kadm.ListedOffsets, error), which, topic string) (kadm.ListedOffsets, error) {
	offsets, err := list(ctx, topic)
	if err != nil {
		return nil, fmt.Errorf("listing %s offsets of %q: %w", which, topic, err)
	}
	for part, o := range offsets[topic] {
		if o.Err != nil {
			return nil, fmt.Errorf("%s offset of %q partition %d: %w", which, topic, part, o.Err)
		}
	}
	return offsets, nil
}

// commitPicked commits what pick chooses on each partition of ends (starts
// may be nil: a start of 0).
func commitPicked(ctx context.Context, adm *kadm.Client, topic, group string, ends, starts kadm.ListedOffsets, pick func(partition int32, start, end int64) (int64, bool)) error {
	toCommit := kadm.Offsets{}
	for part, end := range ends[topic] {
		var start int64
		if s, ok := starts.Lookup(topic, part); ok {
			start = s.Offset
		}
		if at, ok := pick(part, start, end.Offset); ok {
			toCommit.Add(kadm.Offset{Topic: topic, Partition: part, At: at, LeaderEpoch: -1})
		}
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
