package brokercfg

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"text/template"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-bench/kafka_bench_exporter/bench/spec"
	"github.com/kafka-bench/kafka_bench_exporter/redact"
)

// The environment of the restart command, besides the template's fields.
const (
	EnvBrokerID     = "KAFKA_BENCH_BROKER_ID"
	EnvHost         = "KAFKA_BENCH_HOST"
	EnvSettingsFile = "KAFKA_BENCH_SETTINGS_FILE"
	// EnvSettings holds the file's lines, key=value, one a line.
	EnvSettings = "KAFKA_BENCH_SETTINGS"
	// EnvUnset lists, space-separated, the keys to remove from the
	// broker's configuration (they were unset before the bench).
	EnvUnset = "KAFKA_BENCH_UNSET"
)

const (
	// hookOutputMax is how much of a failed hook's output its error shows
	// (the end of it).
	hookOutputMax = 4096
	// backPoll is how often a restarted broker is looked at.
	backPoll = 500 * time.Millisecond
	// metadataTopic is the controller quorum's log.
	metadataTopic = "__cluster_metadata"
)

// RestartError is a broker restart that failed or timed out: the sweep
// stops, and the restore puts back what it can.
type RestartError struct{ Err error }

func (e *RestartError) Error() string { return e.Err.Error() }
func (e *RestartError) Unwrap() error { return e.Err }

// staticValue is what a static setting must show on a broker: a value set
// in its configuration file, or (unset) no value of its own, which shows
// the value it had before the bench.
type staticValue struct {
	value string
	unset bool
}

func (v staticValue) String() string {
	if v.unset {
		return "(unset)"
	}
	return v.value
}

// restarter restarts brokers one at a time through the bench's restart
// hook for static settings, and puts the original values back the same way.
type restarter struct {
	hook      *spec.Restart
	tmpl      *template.Template
	static    map[string]bool                  // the read-only settings the scenarios set
	originals map[int32]map[string]configState // before the first restart, per broker
	hosts     map[int32]string                 // as metadata advertises them
	changed   map[int32]map[string]staticValue // what each broker was last restarted with
}

func newRestarter(hook *spec.Restart, hosts map[int32]string) (*restarter, error) {
	r := &restarter{hook: hook, static: map[string]bool{}, originals: map[int32]map[string]configState{},
		hosts: hosts, changed: map[int32]map[string]staticValue{}}
	if hook != nil {
		t, err := hook.Template()
		if err != nil {
			return nil, err
		}
		r.tmpl = t
	}
	return r, nil
}

// splitStatic separates the static settings (through restarts) from the
// dynamic ones (IncrementalAlterConfigs).
func (c *Changer) splitStatic(settings []spec.ConfigSetting) (static, dynamic []spec.ConfigSetting) {
	for _, s := range settings {
		if !s.Topic && c.restart.static[s.Name] {
			static = append(static, s)
		} else {
			dynamic = append(dynamic, s)
		}
	}
	return static, dynamic
}

// staticTargets are, per broker, the static settings a scenario needs: its
// own values, and the original of every one an earlier scenario changed
// that this one does not set.
func (c *Changer) staticTargets(settings []spec.ConfigSetting) map[int32]map[string]staticValue {
	out := map[int32]map[string]staticValue{}
	for id, orig := range c.restart.originals {
		for name, st := range orig {
			if out[id] == nil {
				out[id] = map[string]staticValue{}
			}
			out[id][name] = originalValue(st)
		}
	}
	for res, vals := range c.wanted(settings, "") {
		if out[res.broker] == nil {
			out[res.broker] = map[string]staticValue{}
		}
		for name, v := range vals {
			out[res.broker][name] = staticValue{value: v}
		}
	}
	return out
}

// originalValue is how a static setting is put back: set again where the
// broker's file set it, else removed.
func originalValue(st configState) staticValue {
	if st.source == kmsg.ConfigSourceStaticBrokerConfig {
		return staticValue{value: deref(st.value)}
	}
	return staticValue{unset: true}
}

// applyStatic restarts, one at a time, every broker whose static settings
// differ from targets, and waits until each is back and shows them. The
// originals are read before the first restart of a broker.
func (c *Changer) applyStatic(ctx context.Context, targets map[int32]map[string]staticValue) error {
	for _, id := range slices.Sorted(maps.Keys(targets)) {
		want := targets[id]
		names := slices.Sorted(maps.Keys(want))
		cur, err := c.describe(ctx, id, resource{broker: id}, names)
		if err != nil {
			return fmt.Errorf("describing broker %d: %w", id, err)
		}
		if c.restart.originals[id] == nil {
			c.restart.originals[id] = map[string]configState{}
		}
		for _, n := range names {
			if _, ok := c.restart.originals[id][n]; !ok {
				c.restart.originals[id][n] = cur[n]
			}
		}
		if c.showsStatic(id, cur, want) == nil {
			continue
		}
		if err := c.restartBroker(ctx, id, want); err != nil {
			return &RestartError{err}
		}
	}
	return nil
}

// showsStatic tells whether a broker's configuration shows want: each set
// value from its file (STATIC_BROKER_CONFIG), each unset one with no value
// of the file and the value it had before.
func (c *Changer) showsStatic(id int32, cur map[string]configState, want map[string]staticValue) error {
	for _, n := range slices.Sorted(maps.Keys(want)) {
		w, st := want[n], cur[n]
		fromFile := st.source == kmsg.ConfigSourceStaticBrokerConfig
		switch {
		case !w.unset && (!fromFile || deref(st.value) != w.value):
			return fmt.Errorf("broker %d shows %s = %s (%s), want %s (%s)", id, n, redact.Value(n, deref(st.value)), st.source, redact.Value(n, w.value), kmsg.ConfigSourceStaticBrokerConfig)
		case w.unset && (fromFile || deref(st.value) != deref(c.restart.originals[id][n].value)):
			return fmt.Errorf("broker %d shows %s = %s (%s), want %s without a value of its own", id, n, redact.Value(n, deref(st.value)), st.source, redact.Value(n, deref(c.restart.originals[id][n].value)))
		}
	}
	return nil
}

// restartBroker restarts one broker with its static settings: once every
// broker is back (never a second one down), it runs the hook and waits
// until the broker is back and shows them. Neither is cut short by SIGINT:
// a broker half-restarted is worse than a late stop.
func (c *Changer) restartBroker(ctx context.Context, id int32, want map[string]staticValue) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Duration(c.restart.hook.Timeout))
	defer cancel()
	if err := c.waitBack(ctx, -1, nil); err != nil {
		return fmt.Errorf("not restarting broker %d while the cluster is not back: %w", id, err)
	}
	c.restart.changed[id] = want
	start := time.Now()
	var shown []string
	for _, n := range slices.Sorted(maps.Keys(want)) {
		shown = append(shown, n+"="+redact.Value(n, want[n].String()))
	}
	c.logger.Info("restarting broker", "broker", id, "host", c.restart.hosts[id], "settings", strings.Join(shown, " "))
	if err := c.runHook(ctx, id, want); err != nil {
		return err
	}
	if err := c.waitBack(ctx, id, want); err != nil {
		return fmt.Errorf("broker %d not back after its restart within restart.timeout (%s): %w", id, c.restart.hook.Timeout, err)
	}
	c.logger.Info("broker back", "broker", id, "seconds", time.Since(start).Seconds())
	return nil
}

// restartCommand is the command that restarts broker id, as the plan
// shows it (the settings file is made at the restart).
func (c *Changer) restartCommand(id int32) (string, error) {
	var b bytes.Buffer
	if err := c.restart.tmpl.Execute(&b, spec.RestartData{BrokerID: id, Host: c.restart.hosts[id], SettingsFile: "<settings file>"}); err != nil {
		return "", fmt.Errorf("restart.command for broker %d: %w", id, err)
	}
	return b.String(), nil
}

// hookEnv is the hook's settings file content and environment.
func hookEnv(id int32, host, file string, want map[string]staticValue) (content string, env []string) {
	var lines, unset []string
	for _, n := range slices.Sorted(maps.Keys(want)) {
		if want[n].unset {
			unset = append(unset, n)
		} else {
			lines = append(lines, n+"="+want[n].value)
		}
	}
	content = strings.Join(lines, "\n")
	if content != "" {
		content += "\n"
	}
	return content, []string{
		EnvBrokerID + "=" + strconv.Itoa(int(id)),
		EnvHost + "=" + host,
		EnvSettingsFile + "=" + file,
		EnvSettings + "=" + content,
		EnvUnset + "=" + strings.Join(unset, " "),
	}
}

// runHook runs the restart command for one broker.
func (c *Changer) runHook(ctx context.Context, id int32, want map[string]staticValue) (err error) {
	f, err := os.CreateTemp("", "kafka-bench-restart-*.properties")
	if err != nil {
		return fmt.Errorf("restart hook for broker %d: %w", id, err)
	}
	defer func() { _ = os.Remove(f.Name()) }()
	host := c.restart.hosts[id]
	content, env := hookEnv(id, host, f.Name(), want)
	_, werr := f.WriteString(content)
	if err := errors.Join(werr, f.Close()); err != nil {
		return fmt.Errorf("restart hook for broker %d: %w", id, err)
	}
	var cmdline bytes.Buffer
	if err := c.restart.tmpl.Execute(&cmdline, spec.RestartData{BrokerID: id, Host: host, SettingsFile: f.Name()}); err != nil {
		return fmt.Errorf("restart hook for broker %d: %w", id, err)
	}
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", cmdline.String())
	cmd.Env = append(os.Environ(), env...)
	out := &tailBuffer{max: hookOutputMax}
	cmd.Stdout, cmd.Stderr = out, out
	ownProcessGroup(cmd)
	cmd.WaitDelay = 5 * time.Second
	err = cmd.Run()
	if ctx.Err() != nil {
		err = fmt.Errorf("timed out after restart.timeout (%s)", c.restart.hook.Timeout)
	}
	if err != nil {
		return fmt.Errorf("restart hook for broker %d (%s) failed: %w; its output:\n%s", id, cmdline.String(), err, indent(out.String()))
	}
	c.logger.Debug("restart hook done", "broker", id, "output", out.String())
	return nil
}

// waitBack waits until the cluster is back: every broker registered (in a
// fresh Metadata response), no partition under-replicated, and the
// controller quorum caught up; and broker id (unless -1) shows want and,
// with restart.preferred_leaders, the preferred leaders elected.
func (c *Changer) waitBack(ctx context.Context, id int32, want map[string]staticValue) error {
	elected := false
	for {
		err := c.back(ctx, id, want)
		if err == nil && id >= 0 && c.restart.hook.PreferredLeaders && !elected {
			if err = c.electPreferred(ctx); err == nil {
				elected = true
				continue // the leaders moved: look again
			}
		}
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(backPoll):
		}
	}
}

// back checks once what waitBack waits for.
func (c *Changer) back(ctx context.Context, id int32, want map[string]staticValue) error {
	req := kmsg.NewPtrMetadataRequest() // every topic
	resp, err := req.RequestWith(ctx, c.cl)
	if err != nil {
		return fmt.Errorf("metadata: %w", err)
	}
	registered := map[int32]bool{}
	for _, b := range resp.Brokers {
		registered[b.NodeID] = true
	}
	for _, b := range c.brokers {
		if !registered[b] {
			return fmt.Errorf("broker %d is not registered", b)
		}
	}
	under := 0
	var first string
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			if len(p.ISR) < len(p.Replicas) || p.Leader < 0 {
				if under == 0 {
					first = fmt.Sprintf("%s-%d (replicas %v, in sync %v)", deref(t.Topic), p.Partition, p.Replicas, p.ISR)
				}
				under++
			}
		}
	}
	if under > 0 {
		return fmt.Errorf("%d partitions under-replicated, such as %s", under, first)
	}
	if err := c.quorumCaughtUp(ctx); err != nil {
		return err
	}
	if id < 0 {
		return nil
	}
	cur, err := c.describe(ctx, id, resource{broker: id}, slices.Sorted(maps.Keys(want)))
	if err != nil {
		return fmt.Errorf("describing broker %d: %w", id, err)
	}
	return c.showsStatic(id, cur, want)
}

// quorumCaughtUp checks that every voter of the controller quorum has
// replicated the metadata log up to its high watermark; a cluster whose
// controllers are apart from its brokers answers for them all the same.
func (c *Changer) quorumCaughtUp(ctx context.Context) error {
	req := kmsg.NewPtrDescribeQuorumRequest()
	t := kmsg.NewDescribeQuorumRequestTopic()
	t.Topic = metadataTopic
	p := kmsg.NewDescribeQuorumRequestTopicPartition()
	t.Partitions = append(t.Partitions, p)
	req.Topics = append(req.Topics, t)
	resp, err := req.RequestWith(ctx, c.cl)
	if err != nil {
		return fmt.Errorf("describing the controller quorum: %w", err)
	}
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		return fmt.Errorf("describing the controller quorum: %w", withMessage(err, deref(resp.ErrorMessage)))
	}
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
				return fmt.Errorf("describing the controller quorum: %w", err)
			}
			if p.LeaderID < 0 {
				return errors.New("the controller quorum has no leader")
			}
			for _, v := range p.CurrentVoters {
				if v.LogEndOffset < p.HighWatermark {
					return fmt.Errorf("controller %d is behind the quorum: log end offset %d, high watermark %d", v.ReplicaID, v.LogEndOffset, p.HighWatermark)
				}
			}
		}
	}
	return nil
}

// electPreferred elects the preferred leader of every partition.
func (c *Changer) electPreferred(ctx context.Context) error {
	res, err := c.adm.ElectLeaders(ctx, kadm.ElectPreferredReplica, nil)
	if err != nil {
		return fmt.Errorf("electing preferred leaders: %w", err)
	}
	for _, ps := range res {
		for _, r := range ps {
			if r.Err != nil && !errors.Is(r.Err, kerr.ElectionNotNeeded) {
				return fmt.Errorf("electing the preferred leader of %s-%d: %w", r.Topic, r.Partition, r.Err)
			}
		}
	}
	return nil
}

// restoreStatic restarts, one at a time, every broker that does not show
// its original static settings. What it cannot put back is returned with
// what to do by hand.
func (c *Changer) restoreStatic() error {
	if len(c.restart.originals) == 0 {
		return nil
	}
	ctx := context.Background()
	targets := map[int32]map[string]staticValue{}
	for id, orig := range c.restart.originals {
		targets[id] = map[string]staticValue{}
		for n, st := range orig {
			targets[id][n] = originalValue(st)
		}
	}
	err := c.applyStatic(ctx, targets)
	if err == nil {
		for _, id := range slices.Sorted(maps.Keys(targets)) {
			for _, n := range slices.Sorted(maps.Keys(targets[id])) {
				c.logger.Info("configuration restored", "resource", resource{broker: id}.String(), "key", n, "value", redact.Value(n, targets[id][n].String()))
			}
		}
		c.restart.originals = map[int32]map[string]configState{}
		return nil
	}
	var todo []string
	for _, id := range slices.Sorted(maps.Keys(targets)) {
		if _, ok := c.restart.changed[id]; !ok {
			continue // never restarted
		}
		var set, unset []string
		for _, n := range slices.Sorted(maps.Keys(targets[id])) {
			if v := targets[id][n]; v.unset {
				unset = append(unset, n)
			} else {
				set = append(set, n+"="+redact.Value(n, v.value))
			}
		}
		line := fmt.Sprintf("  broker %d (%s):", id, c.restart.hosts[id])
		if len(set) > 0 {
			line += " set " + strings.Join(set, ", ")
		}
		if len(unset) > 0 {
			line += " remove " + strings.Join(unset, ", ")
		}
		todo = append(todo, line+" in its server.properties and restart it")
	}
	return fmt.Errorf("restoring the original static broker configurations failed (%w); put them back by hand, one broker at a time:\n%s", err, strings.Join(todo, "\n"))
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	max int
	buf []byte
	cut bool
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.buf = append(b.buf, p...)
	if len(b.buf) > b.max {
		b.buf = slices.Clone(b.buf[len(b.buf)-b.max:])
		b.cut = true
	}
	return len(p), nil
}

func (b *tailBuffer) String() string {
	s := strings.TrimRight(string(b.buf), "\n")
	if s == "" {
		return "(none)"
	}
	if b.cut {
		s = "..." + s
	}
	return s
}

func indent(s string) string { return "  " + strings.ReplaceAll(s, "\n", "\n  ") }
