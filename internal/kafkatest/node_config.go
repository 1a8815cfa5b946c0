package kafkatest

import (
	"fmt"
	"maps"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// configureNodes gives every node its ports (client, controller and, with
// Options.SASLSSL, secure listener), its directory and log, and writes its
// server.properties.
func (c *Cluster) configureNodes() error {
	perNode := 2
	if c.opts.SASLSSL != nil {
		perNode = 3
	}
	ports, err := freePorts(perNode * c.opts.Nodes)
	if err != nil {
		return err
	}
	voters := make([]string, c.opts.Nodes)
	for i := range c.opts.Nodes {
		n := &node{id: int32(i + 1), port: ports[perNode*i], cport: ports[perNode*i+1]}
		if c.opts.SASLSSL != nil {
			n.sport = ports[perNode*i+2]
		}
		n.home = filepath.Join(c.dir, fmt.Sprintf("node-%d", n.id))
		n.config = filepath.Join(n.home, "server.properties")
		n.logPath = filepath.Join(c.dir, fmt.Sprintf("node-%d.log", n.id))
		c.nodes = append(c.nodes, n)
		voters[i] = fmt.Sprintf("%d@127.0.0.1:%d", n.id, n.cport)
	}
	for _, n := range c.nodes {
		if err := os.MkdirAll(n.home, 0o755); err != nil {
			return fmt.Errorf("kafkatest: %w", err)
		}
		if err := os.WriteFile(n.config, []byte(c.nodeConfig(n, strings.Join(voters, ","))), 0o644); err != nil {
			return fmt.Errorf("kafkatest: %w", err)
		}
	}
	return nil
}

// loopback is "127.0.0.1:port".
func loopback(port int) string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(port)) }

func (n *node) addr() string { return loopback(n.port) }

// nodeConfig renders server.properties: KRaft combined mode on loopback with
// settings that make a test cluster start and form groups fast.
func (c *Cluster) nodeConfig(n *node, voters string) string {
	rf := min(c.opts.Nodes, 3)
	minISR := max(rf-1, 1)
	kv := [][2]string{
		{"process.roles", "broker,controller"},
		{"node.id", strconv.Itoa(int(n.id))},
		{"controller.quorum.voters", voters},
		{"listeners", fmt.Sprintf("PLAINTEXT://127.0.0.1:%d,CONTROLLER://127.0.0.1:%d", n.port, n.cport)},
		{"advertised.listeners", fmt.Sprintf("PLAINTEXT://127.0.0.1:%d", n.port)},
		{"inter.broker.listener.name", "PLAINTEXT"},
		{"controller.listener.names", "CONTROLLER"},
		{"listener.security.protocol.map", "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT"},
		{"log.dirs", filepath.Join(n.home, "data")},
		{"num.partitions", "1"},
		{"default.replication.factor", strconv.Itoa(rf)},
		{"min.insync.replicas", strconv.Itoa(minISR)},
		{"offsets.topic.replication.factor", strconv.Itoa(rf)},
		{"offsets.topic.num.partitions", "1"}, // default 50 makes the first group join slow
		{"transaction.state.log.replication.factor", strconv.Itoa(rf)},
		{"transaction.state.log.min.isr", strconv.Itoa(minISR)},
		{"share.coordinator.state.topic.replication.factor", strconv.Itoa(rf)},
		{"share.coordinator.state.topic.min.isr", strconv.Itoa(minISR)},
		{"group.initial.rebalance.delay.ms", "0"}, // default 3 s
		{"auto.create.topics.enable", "false"},
	}
	if c.opts.SASLSSL != nil {
		kv = c.opts.SASLSSL.listenerConfig(kv, n, c.certs)
	}
	if int(n.id) <= len(c.opts.Racks) {
		kv = append(kv, [2]string{"broker.rack", c.opts.Racks[n.id-1]})
	}
	for _, k := range slices.Sorted(maps.Keys(c.opts.BrokerConfig)) {
		i := slices.IndexFunc(kv, func(e [2]string) bool { return e[0] == k })
		if i >= 0 {
			kv[i][1] = c.opts.BrokerConfig[k]
		} else {
			kv = append(kv, [2]string{k, c.opts.BrokerConfig[k]})
		}
	}
	var b strings.Builder
	b.WriteString("# written by internal/kafkatest\n")
	for _, e := range kv {
		fmt.Fprintf(&b, "%s=%s\n", e[0], e[1])
	}
	return b.String()
}

// ConfigPath is node i's server.properties.
func (c *Cluster) ConfigPath(i int) string { return c.node(i).config }

// SetProperties rewrites node i's server.properties: each key of set gets
// its value (replaced in place, or added at the end), each key of unset is
// removed. A running node reads it at its next start (Restart keeps its data
// directory and ports).
func (c *Cluster) SetProperties(i int, set map[string]string, unset []string) error {
	n := c.node(i)
	c.mu.Lock()
	defer c.mu.Unlock()
	data, err := os.ReadFile(n.config)
	if err != nil {
		return fmt.Errorf("kafkatest: %w", err)
	}
	done := map[string]bool{}
	var out []string
	for line := range strings.SplitSeq(strings.TrimRight(string(data), "\n"), "\n") {
		k, _, isKV := strings.Cut(line, "=")
		k = strings.TrimSpace(k)
		switch {
		case !isKV || strings.HasPrefix(k, "#"):
			out = append(out, line)
		case slices.Contains(unset, k):
		case hasKey(set, k):
			if !done[k] {
				out = append(out, k+"="+set[k])
				done[k] = true
			}
		default:
			out = append(out, line)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(set)) {
		if !done[k] {
			out = append(out, k+"="+set[k])
		}
	}
	if err := os.WriteFile(n.config, []byte(strings.Join(out, "\n")+"\n"), 0o644); err != nil {
		return fmt.Errorf("kafkatest: %w", err)
	}
	return nil
}

func hasKey(m map[string]string, k string) bool {
	_, ok := m[k]
	return ok
}

// nodeEnv is the JVM and jars node n runs.
func (c *Cluster) nodeEnv(n *node) jvmEnv {
	if n.env != nil {
		return *n.env
	}
	return c.env
}

// NodeVersion is the Kafka release node i runs.
func (c *Cluster) NodeVersion(i int) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.nodeEnv(c.node(i)).version
}

// jvmFlags are the flags for the broker JVM.
func (c *Cluster) jvmFlags(n *node) []string {
	env := c.nodeEnv(n)
	heap := strconv.Itoa(c.opts.HeapMB) + "m"
	extra := c.opts.JVMFlags
	if c.opts.SASLSSL != nil {
		extra = append(c.opts.SASLSSL.jvmFlags(), extra...)
	}
	return append(append([]string{
		"-Xms" + heap, "-Xmx" + heap,
		"-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20", "-XX:+ExplicitGCInvokesConcurrent",
		"-Xshare:auto",
		"-Djava.awt.headless=true",
		"-Dlog4j2.configurationFile=" + env.log4j,
		"-Dkafka.logs.dir=" + n.home,
	}, append(env.brokerCDS, extra...)...), "-cp", filepath.Join(env.lib, "*"))
}

// formatArgs are the storage tool's arguments that format node n.
func (c *Cluster) formatArgs(n *node) []string {
	// A short-lived tool: C1 only and a small heap start faster.
	args := append([]string{"-Xmx256m", "-XX:TieredStopAtLevel=1", "-Xshare:auto"}, c.env.formatCDS...)
	args = append(args,
		"-Dlog4j2.configurationFile="+c.env.log4j,
		"-cp", filepath.Join(c.env.lib, "*"),
		"kafka.tools.StorageTool", "format", "-t", c.clusterID, "-c", n.config,
	)
	if c.opts.SASLSSL != nil {
		args = append(args, c.opts.SASLSSL.formatArgs()...)
	}
	return args
}
