package brokercfg

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-bench/kafka_bench_exporter/bench/spec"
	"github.com/kafka-bench/kafka_bench_exporter/config"
)

// password is the secret the redaction tests hide; it must appear nowhere.
const password = "hunter2"

// TestNoSecretInRefusal: a broker setting named like a password, refused
// before anything runs, shows no secret.
func TestNoSecretInRefusal(t *testing.T) {
	b, err := spec.Parse([]byte("num_records: 10\ndefaults: {broker.7.ssl.key.password: hunter2}\n"))
	if err != nil {
		t.Fatal(err)
	}
	c := &Changer{brokers: []int32{1}}
	err = c.Check(context.Background(), b)
	var refused *RefusedError
	if !errors.As(err, &refused) || strings.Contains(err.Error(), password) || !strings.Contains(err.Error(), "= <secret>: no broker 7") {
		t.Errorf("refused setting: %v", err)
	}
}

// TestUnflaggedSecretNotShown: a broker that describes a key named like a
// secret with its value and without the sensitive flag (a broker other than
// Apache Kafka's) gets the key refused as sensitive, and neither the refusal
// nor the plan shows the value the broker sent or the one the bench sets.
func TestUnflaggedSecretNotShown(t *testing.T) {
	const key = "listener.name.internal.ssl.key.password"
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.ControlKey(int16(kmsg.DescribeConfigs), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		req := kreq.(*kmsg.DescribeConfigsRequest)
		resp := req.ResponseKind().(*kmsg.DescribeConfigsResponse)
		for _, r := range req.Resources {
			rr := kmsg.NewDescribeConfigsResponseResource()
			rr.ResourceType, rr.ResourceName = r.ResourceType, r.ResourceName
			rc := kmsg.NewDescribeConfigsResponseResourceConfig()
			rc.Name, rc.Value, rc.Source = key, new("old-"+password), kmsg.ConfigSourceDynamicBrokerConfig
			rr.Configs = append(rr.Configs, rc)
			resp.Resources = append(resp.Resources, rr)
		}
		return resp, nil, true
	})
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	b, err := spec.Parse([]byte("num_records: 10\ndefaults: {broker." + key + ": new-" + password + "}\n"))
	if err != nil {
		t.Fatal(err)
	}
	var logs strings.Builder
	ch, err := New(t.Context(), cl, config.Kafka{Brokers: c.ListenAddrs()}, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	err = ch.Check(t.Context(), b)
	if _, ok := errors.AsType[*RefusedError](err); !ok || !strings.Contains(err.Error(), "= <secret>: sensitive broker configuration") {
		t.Errorf("Check = %v, want the key refused as sensitive", err)
	}
	var plan strings.Builder
	if err := WritePlan(t.Context(), &plan, ch, b.Scenarios); err != nil {
		t.Fatal(err)
	}
	for what, s := range map[string]string{"refusal": fmt.Sprint(err), "plan": plan.String(), "log": logs.String()} {
		if strings.Contains(s, password) {
			t.Errorf("the %s shows the secret:\n%s", what, s)
		}
	}
	if !strings.Contains(plan.String(), key+" = <secret> (now <secret>") {
		t.Errorf("plan:\n%s", plan.String())
	}
}
