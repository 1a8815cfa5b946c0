package kclient

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
)

// Broker configurations that set how long Kafka averages client quotas
// over (Kafka's defaults: 11 windows of 1 s).
const (
	QuotaWindowNum  = "quota.window.num"
	QuotaWindowSize = "quota.window.size.seconds"
)

// QuotaWindow is how long the brokers average a client's byte and request
// rates over before throttling it: quota.window.num ×
// quota.window.size.seconds, read with DescribeConfigs, the longest of any
// broker. ok is false when no broker reports both.
func QuotaWindow(ctx context.Context, adm *kadm.Client) (window time.Duration, ok bool, err error) {
	brokers, err := adm.ListBrokers(ctx)
	if err != nil {
		return 0, false, fmt.Errorf("listing brokers: %w", err)
	}
	rcs, err := adm.DescribeBrokerConfigs(ctx, brokers.NodeIDs()...)
	if err != nil {
		return 0, false, fmt.Errorf("describing broker configs: %w", err)
	}
	for _, rc := range rcs {
		if rc.Err != nil {
			continue
		}
		var num, size int64
		for _, c := range rc.Configs {
			v, perr := strconv.ParseInt(c.MaybeValue(), 10, 64)
			if perr != nil || v <= 0 {
				continue
			}
			switch c.Key {
			case QuotaWindowNum:
				num = v
			case QuotaWindowSize:
				size = v
			}
		}
		if num > 0 && size > 0 {
			ok = true
			window = max(window, time.Duration(num*size)*time.Second)
		}
	}
	return window, ok, nil
}
