package kafkatest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/kafka-bench/kafka_bench_exporter/internal/testenv"
)

const (
	// stopTimeout is how long Stop waits after SIGTERM before SIGKILL.
	stopTimeout = 30 * time.Second
	// quorumGrace is how long StopAll lets the last nodes try to finish a
	// controlled shutdown after the controller quorum is gone.
	quorumGrace = 5 * time.Second
	// restartTimeout bounds Restart, which has no context.
	restartTimeout = 90 * time.Second
)

// process is one run of a JVM; a restarted node gets a new one.
type process struct {
	cmd  *exec.Cmd
	done chan struct{} // closed once the JVM has exited and been reaped
	err  error         // Wait's result, valid after done
}

func (p *process) running() bool {
	if p == nil {
		return false
	}
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// signal signals the JVM's whole process group.
func (p *process) signal(sig syscall.Signal) error {
	err := syscall.Kill(-p.cmd.Process.Pid, sig)
	if errors.Is(err, syscall.ESRCH) {
		return nil // already gone
	}
	return err
}

// kill kills the JVM with SIGKILL and waits until it is gone.
func (p *process) kill() {
	_ = p.signal(syscall.SIGKILL)
	<-p.done
}

// terminate sends SIGTERM, then SIGCONT: a paused JVM must run to handle
// SIGTERM; SIGCONT on a running one is harmless. what names the JVM in
// errors ("node 2").
func (p *process) terminate(what string) error {
	if err := p.signal(syscall.SIGTERM); err != nil {
		return fmt.Errorf("kafkatest: SIGTERM %s: %w", what, err)
	}
	_ = p.signal(syscall.SIGCONT)
	return nil
}

// stop terminates the JVM and waits for it to exit; after stopTimeout it is
// killed and stop returns an error saying so, with the tail of logPath.
func (p *process) stop(what, logPath string) error {
	if err := p.terminate(what); err != nil {
		return err
	}
	select {
	case <-p.done:
		return nil
	case <-time.After(stopTimeout):
	}
	p.kill()
	return killedAfterTERM(what, logPath)
}

func killedAfterTERM(what, logPath string) error {
	return fmt.Errorf("kafkatest: %s did not exit within %v of SIGTERM, killed it; log %s\n%s", what, stopTimeout, logPath, tail(logPath))
}

// lookJava finds the java that runs every JVM.
func lookJava() (string, error) {
	java, err := exec.LookPath("java")
	if err != nil {
		return "", fmt.Errorf("kafkatest: %w (install: apt-get install openjdk-17-jdk-headless maven)", err)
	}
	return java, nil
}

// startLogged starts cmd (a JVM) with its stdout and stderr appended to
// logPath, after the line "==== kafkatest: <what> <detail> ====", so that the
// log of a restarted JVM keeps the history of earlier runs. The JVM gets its
// own process group: a Ctrl-C on the terminal reaches only the Go process,
// which then stops the JVMs itself. testenv.StartTied: a test binary that
// crashes or is killed on timeout takes its JVMs with it.
func startLogged(cmd *exec.Cmd, logPath, what, detail string) (*process, error) {
	f, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("kafkatest: %w", err)
	}
	// The child has its own copy and writes through it; ours wrote only
	// the header, which is already out.
	defer func() { _ = f.Close() }()
	if _, err := fmt.Fprintf(f, "==== kafkatest: %s %s ====\n", what, detail); err != nil {
		return nil, fmt.Errorf("kafkatest: %w", err)
	}
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := testenv.StartTied(cmd); err != nil {
		return nil, fmt.Errorf("kafkatest: %s: %w", what, err)
	}
	p := &process{cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// format formats node n's storage with the storage tool.
func (c *Cluster) format(ctx context.Context, n *node) error {
	what := fmt.Sprintf("formatting node %d", n.id)
	p, err := startLogged(exec.CommandContext(ctx, c.env.java, c.formatArgs(n)...), n.logPath, what, "(cluster "+c.clusterID+")")
	if err != nil {
		return err
	}
	<-p.done
	if p.err != nil {
		return fmt.Errorf("kafkatest: %s: %w\n%s", what, p.err, tail(n.logPath))
	}
	return nil
}

// startLocked starts n's JVM.
func (c *Cluster) startLocked(n *node) error {
	if c.closed {
		return errors.New("kafkatest: cluster is closed")
	}
	if n.proc.running() {
		return fmt.Errorf("kafkatest: node %d is already running", n.id)
	}
	cmd := exec.Command(c.nodeEnv(n).java, append(c.jvmFlags(n), "kafka.Kafka", n.config)...)
	cmd.Dir = n.home
	p, err := startLogged(cmd, n.logPath, fmt.Sprintf("starting node %d", n.id), "at "+time.Now().Format(time.RFC3339Nano))
	if err != nil {
		return err
	}
	n.proc, n.paused = p, false
	return nil
}

// startStopped starts every node that is not running, all at once (so that
// a quorum can form).
func (c *Cluster) startStopped() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, n := range c.nodes {
		if n.proc.running() {
			continue
		}
		if err := c.startLocked(n); err != nil {
			return err
		}
	}
	return nil
}

// StartAll starts every node that is not running (all at once, so that a
// quorum can form) and waits until all running brokers are in metadata.
func (c *Cluster) StartAll(ctx context.Context) error {
	if err := c.startStopped(); err != nil {
		return err
	}
	return c.WaitReady(ctx)
}

// Stop stops node i with SIGTERM (controlled shutdown) and waits for the JVM
// to exit; after 30 s it is killed and Stop returns an error saying so.
// Stopping a node that is not running is a no-op. A controlled shutdown needs
// a controller quorum: stopping the nodes of a 3-node cluster one after the
// other hangs the last one until the kill (use StopAll).
func (c *Cluster) Stop(i int) error {
	n, p := c.current(i)
	if p == nil {
		return nil
	}
	err := p.stop(fmt.Sprintf("node %d", n.id), n.logPath)
	if !p.running() {
		c.setPaused(n, false)
	}
	return err
}

// Kill kills node i with SIGKILL (a crash) and waits until it is gone.
// Killing a node that is not running is a no-op.
func (c *Cluster) Kill(i int) error {
	n, p := c.current(i)
	if p == nil {
		return nil
	}
	if err := p.signal(syscall.SIGKILL); err != nil {
		return fmt.Errorf("kafkatest: SIGKILL node %d: %w", n.id, err)
	}
	<-p.done
	c.setPaused(n, false)
	return nil
}

// Pause stops node i with SIGSTOP (a stall: sockets stay open, nothing
// answers) and returns once the kernel reports it stopped.
func (c *Cluster) Pause(i int) error {
	n, p := c.current(i)
	if p == nil {
		return fmt.Errorf("kafkatest: Pause: node %d is not running", n.id)
	}
	if err := p.signal(syscall.SIGSTOP); err != nil {
		return fmt.Errorf("kafkatest: SIGSTOP node %d: %w", n.id, err)
	}
	c.setPaused(n, true)
	deadline := time.Now().Add(5 * time.Second)
	for procState(p.cmd.Process.Pid) != 'T' {
		if time.Now().After(deadline) {
			return fmt.Errorf("kafkatest: node %d not stopped 5 s after SIGSTOP", n.id)
		}
		time.Sleep(5 * time.Millisecond)
	}
	return nil
}

// Resume continues node i after Pause with SIGCONT.
func (c *Cluster) Resume(i int) error {
	n, p := c.current(i)
	if p == nil {
		return fmt.Errorf("kafkatest: Resume: node %d is not running", n.id)
	}
	if err := p.signal(syscall.SIGCONT); err != nil {
		return fmt.Errorf("kafkatest: SIGCONT node %d: %w", n.id, err)
	}
	c.setPaused(n, false)
	return nil
}

// procState returns the state letter of /proc/PID/stat ('R', 'S', 'T', ...), or 0.
func procState(pid int) byte {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command name is in parentheses and may contain spaces: the state follows the last ')'.
	s := string(b)
	if j := strings.LastIndexByte(s, ')'); j >= 0 && j+2 < len(s) {
		return s[j+2]
	}
	return 0
}

func (c *Cluster) setPaused(n *node, paused bool) {
	c.mu.Lock()
	n.paused = paused
	c.mu.Unlock()
}

// Restart starts node i again on the same ports and log dir (a running node is
// stopped first) and waits until it is registered, i.e. listed in metadata.
func (c *Cluster) Restart(i int) error {
	return c.restart(context.Background(), i, nil)
}

// Upgrade restarts node i with the jars of another Apache Kafka release
// (fetched by scripts/kafka.sh like the cluster's), keeping its data
// directory, ports and server.properties: one step of a rolling upgrade. It
// waits until the node is registered again, as Restart does.
func (c *Cluster) Upgrade(ctx context.Context, i int, version string) error {
	lib, log4j, v, err := kafkaLib(ctx, version, c.logf)
	if err != nil {
		return err
	}
	env := jvmEnv{java: c.env.java, lib: lib, log4j: log4j, version: v}.withCDS(ctx, c.logf)
	return c.restart(ctx, i, &env)
}

// restart stops node i, starts it again, with env (when set) as its JVM and
// jars from now on, and waits up to restartTimeout until it is registered.
func (c *Cluster) restart(ctx context.Context, i int, env *jvmEnv) error {
	if err := c.Stop(i); err != nil {
		return err
	}
	n := c.node(i)
	c.mu.Lock()
	if env != nil {
		n.env = env
	}
	err := c.startLocked(n)
	c.mu.Unlock()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, restartTimeout)
	defer cancel()
	return c.waitBrokers(ctx, []int32{n.id})
}

// StopAll stops every running node with SIGTERM, in parallel: one by one, the
// last nodes would wait in controlled shutdown for a quorum that is gone.
// Even in parallel, once fewer than a majority of the nodes still run (one
// was stopped before, or the others finished first) the rest can never
// finish theirs — Kafka waits minutes for the controller — so they get
// quorumGrace and are then killed, which is no failure. A node that hangs
// while a quorum still runs is an error, as with Stop.
func (c *Cluster) StopAll() error {
	type stopping struct {
		n *node
		p *process
	}
	var pending []stopping
	for i := range c.nodes {
		n, p := c.current(i)
		if p == nil {
			continue
		}
		if err := p.terminate(fmt.Sprintf("node %d", n.id)); err != nil {
			return err
		}
		pending = append(pending, stopping{n, p})
	}
	majority := len(c.nodes)/2 + 1
	deadline := time.Now().Add(stopTimeout)
	var lost time.Time // when fewer than a majority were left running
	var errs []error
	for len(pending) > 0 {
		var still []stopping
		for _, s := range pending {
			select {
			case <-s.p.done:
				c.setPaused(s.n, false)
			default:
				still = append(still, s)
			}
		}
		pending = still
		if len(pending) == 0 {
			break
		}
		if lost.IsZero() && len(pending) < majority {
			lost = time.Now()
		}
		quorumGone := !lost.IsZero() && time.Since(lost) > quorumGrace
		if quorumGone || time.Now().After(deadline) {
			for _, s := range pending {
				s.p.kill()
				c.setPaused(s.n, false)
				if !quorumGone {
					errs = append(errs, killedAfterTERM(fmt.Sprintf("node %d", s.n.id), s.n.logPath))
				}
			}
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	return errors.Join(errs...)
}

// Running reports whether node i's JVM is alive (paused counts as alive).
func (c *Cluster) Running(i int) bool {
	n := c.node(i)
	c.mu.Lock()
	defer c.mu.Unlock()
	return n.proc.running()
}

// current returns node i's JVM if it is running, else nil.
func (c *Cluster) current(i int) (*node, *process) {
	n := c.node(i)
	c.mu.Lock()
	defer c.mu.Unlock()
	if !n.proc.running() {
		return n, nil
	}
	return n, n.proc
}

// pid returns the pid of node i's current JVM, or 0.
func (c *Cluster) pid(i int) int {
	if _, p := c.current(i); p != nil {
		return p.cmd.Process.Pid
	}
	return 0
}

// Logs returns the path of node i's stdout/stderr log (all runs, format included).
func (c *Cluster) Logs(i int) string { return c.node(i).logPath }

// tail returns the last lines of a log file, for error messages.
func tail(path string) string {
	const maxLines, maxBytes = 40, 16 << 10
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("(cannot read log: %v)", err)
	}
	if len(b) > maxBytes {
		b = b[len(b)-maxBytes:]
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > maxLines {
		lines = lines[len(lines)-maxLines:]
	}
	return strings.Join(lines, "\n")
}
