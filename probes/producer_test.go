package probes

import (
	"context"
	"fmt"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

func TestFailureReason(t *testing.T) {
	cases := []struct {
		err  error
		want string
	}{
		{kgo.ErrRecordTimeout, ReasonTimeout},
		{context.DeadlineExceeded, ReasonTimeout},
		{kgo.ErrRecordRetries, ReasonRetriesExhausted},
		{kgo.ErrClientClosed, ReasonClientClosed},
		{kerr.NotLeaderForPartition, ReasonNotLeader},
		{kerr.NotEnoughReplicas, ReasonNotEnoughReplicas},
		{kerr.NotEnoughReplicasAfterAppend, ReasonNotEnoughReplicas},
		{kerr.UnknownTopicOrPartition, ReasonTopicMissing},
		{kerr.UnknownTopicID, ReasonTopicMissing},
		{kerr.TopicAuthorizationFailed, ReasonAuth},
		{kerr.SaslAuthenticationFailed, ReasonAuth},
		{kerr.MessageTooLarge, ReasonMessageTooLarge},
		{fmt.Errorf("wrapped: %w", kerr.NotEnoughReplicas), ReasonNotEnoughReplicas},
		{kerr.CorruptMessage, ReasonOther},
	}
	known := map[string]bool{}
	for _, r := range FailureReasons {
		known[r] = true
	}
	for _, c := range cases {
		got := failureReason(c.err)
		if got != c.want {
			t.Errorf("failureReason(%v) = %q, want %q", c.err, got, c.want)
		}
		if !known[got] {
			t.Errorf("reason %q is not in FailureReasons: its series would not be pre-created", got)
		}
	}
}
