package kclient

import (
	"context"
	"errors"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
)

// Group protocols as the coordinator runs them (GroupProtocol).
const (
	ProtocolClassic  = "classic"
	ProtocolConsumer = "consumer"
)

// GroupProtocol is the protocol the coordinator runs group with: consumer
// when ConsumerGroupDescribe (KIP-848) describes it, classic when only
// DescribeGroups does (a classic group, or a broker without KIP-848), ""
// when neither finds it (no member has joined yet). franz-go falls back to
// the classic protocol by itself when the broker lacks KIP-848, so this,
// not the configuration, says which one runs.
func GroupProtocol(ctx context.Context, adm *kadm.Client, group string) (string, error) {
	described, err := adm.DescribeConsumerGroups(ctx, group)
	if err == nil {
		if d, ok := described[group]; ok && d.Err == nil && live(d.State) {
			return ProtocolConsumer, nil
		}
	} else if ctx.Err() != nil {
		return "", err
	} else if _, auth := errors.AsType[*kadm.AuthError](err); auth {
		return "", err
	}
	groups, err := adm.DescribeGroups(ctx, group)
	if err != nil {
		return "", err
	}
	d, ok := groups[group]
	switch {
	case !ok, errors.Is(d.Err, kerr.GroupIDNotFound):
		return "", nil
	case d.Err != nil:
		return "", d.Err
	case !live(d.State):
		return "", nil
	}
	return ProtocolClassic, nil
}

// live is a group state with members (or about to have them).
func live(state string) bool { return state != "" && state != "Dead" && state != "Empty" }
