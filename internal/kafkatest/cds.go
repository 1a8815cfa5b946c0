package kafkatest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

// CDSEnv set to 0 disables the AppCDS archives (to compare start-up times or
// rule them out).
const CDSEnv = "KAFKA_BENCH_CDS"

// jvmEnv is what every JVM of a cluster is started with.
type jvmEnv struct {
	java, lib, log4j string
	version          string   // of the jars in lib
	brokerCDS        []string // AppCDS flags for kafka.Kafka
	formatCDS        []string // AppCDS flags for kafka.tools.StorageTool
}

// withCDS adds dynamic AppCDS archives of the classes the broker and the
// storage tool load. Class loading dominates a Kafka JVM's start (measured on
// 2 cores: broker up in ~1.3 s instead of ~2.3 s) and, unlike C1-only JIT,
// CDS costs nothing once the JVM runs, so benchmarks are unaffected.
//
// The archives are made once per JDK and jar set by a throwaway 1-node
// cluster started with -XX:ArchiveClassesAtExit and stopped with SIGTERM
// (the JVM writes the archive on a clean exit), and are kept in the jar cache.
// Any problem only costs speed: the JVM silently ignores an archive that does
// not match (-Xshare:auto), and a failed training run leaves CDS off.
func (e jvmEnv) withCDS(ctx context.Context, logf func(string, ...any)) jvmEnv {
	if os.Getenv(CDSEnv) == "0" {
		return e
	}
	key, err := e.cdsKey()
	if err != nil {
		logf("kafkatest: AppCDS off: %v", err)
		return e
	}
	dir := filepath.Join(filepath.Dir(e.lib), "cds")
	broker := filepath.Join(dir, "broker-"+key+".jsa")
	format := filepath.Join(dir, "format-"+key+".jsa")
	noDump := filepath.Join(dir, "nodump-"+key)
	use := func() jvmEnv {
		e.brokerCDS = []string{"-XX:SharedArchiveFile=" + broker}
		e.formatCDS = []string{"-XX:SharedArchiveFile=" + format}
		return e
	}
	ready := func() bool { return exists(broker) && exists(format) }
	if ready() {
		return use()
	}
	if exists(noDump) {
		return e
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		logf("kafkatest: AppCDS off: %v", err)
		return e
	}
	// Test binaries of several packages may start at once: one trains, the others wait.
	unlock, err := lockFile(ctx, filepath.Join(dir, ".lock"))
	if err != nil {
		logf("kafkatest: AppCDS off: %v", err)
		return e
	}
	defer unlock()
	if ready() {
		return use()
	}

	began := time.Now()
	tmpBroker, tmpFormat := broker+".tmp", format+".tmp"
	// Leftovers of an interrupted training run, if any.
	_ = os.Remove(tmpBroker)
	_ = os.Remove(tmpFormat)
	train := e
	train.brokerCDS = []string{"-XX:ArchiveClassesAtExit=" + tmpBroker}
	train.formatCDS = []string{"-XX:ArchiveClassesAtExit=" + tmpFormat}
	c, err := startOnce(ctx, Options{Nodes: 1, HeapMB: defaultHeapMB}, func(string, ...any) {}, train)
	if err != nil {
		logf("kafkatest: AppCDS training run failed, starting without CDS: %v", err)
		return e
	}
	stopErr := c.Stop(0)
	c.Close()
	if stopErr != nil || !exists(tmpBroker) || !exists(tmpFormat) {
		logf("kafkatest: AppCDS: the JVM wrote no archive (stop: %v); CDS stays off for this JDK and jar set (remove %s to retry)", stopErr, noDump)
		_ = os.Remove(tmpBroker)
		_ = os.Remove(tmpFormat)
		_ = os.WriteFile(noDump, []byte(fmt.Sprint(stopErr)), 0o644)
		return e
	}
	if err := os.Rename(tmpFormat, format); err != nil {
		logf("kafkatest: AppCDS off: %v", err)
		return e
	}
	if err := os.Rename(tmpBroker, broker); err != nil {
		logf("kafkatest: AppCDS off: %v", err)
		return e
	}
	// Archives of an older JDK or jar set are dead weight (~70 MB).
	if old, _ := filepath.Glob(filepath.Join(dir, "*.jsa")); len(old) > 0 {
		for _, f := range old {
			if f != broker && f != format {
				_ = os.Remove(f) // best effort: a stale archive is never used
			}
		}
	}
	logf("kafkatest: created AppCDS archives in %s in %v (once per JDK and jar set)", dir, time.Since(began).Round(time.Millisecond))
	return use()
}

// cdsKey identifies the JDK and the jar set: an archive is only valid for
// the exact JVM build and the exact jars (the JVM checks sizes and mtimes).
func (e jvmEnv) cdsKey() (string, error) {
	h := sha256.New()
	java, err := filepath.EvalSymlinks(e.java)
	if err != nil {
		return "", err
	}
	// libjvm.so is what a JDK update changes; bin/java covers the rest.
	home := filepath.Dir(filepath.Dir(java))
	for _, f := range []string{java, filepath.Join(home, "lib", "server", "libjvm.so")} {
		st, err := os.Stat(f)
		if err != nil {
			continue
		}
		_, _ = fmt.Fprintf(h, "%s %d %d\n", f, st.Size(), st.ModTime().UnixNano()) // a hash never fails a write
	}
	entries, err := os.ReadDir(e.lib)
	if err != nil {
		return "", err
	}
	names := make([]string, 0, len(entries))
	for _, de := range entries {
		if strings.HasSuffix(de.Name(), ".jar") {
			names = append(names, de.Name())
		}
	}
	slices.Sort(names)
	for _, name := range names {
		st, err := os.Stat(filepath.Join(e.lib, name))
		if err != nil {
			return "", err
		}
		_, _ = fmt.Fprintf(h, "%s %d %d\n", name, st.Size(), st.ModTime().UnixNano())
	}
	_, _ = io.WriteString(h, e.lib)
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

func exists(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular() && st.Size() > 0
}

// lockFile takes an exclusive flock on path, polling so that ctx can cancel.
func lockFile(ctx context.Context, path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			// Closing releases the lock; the file holds no data to lose.
			return func() { _ = f.Close() }, nil
		}
		if err != syscall.EWOULDBLOCK {
			return nil, errors.Join(fmt.Errorf("lock %s: %w", path, err), f.Close())
		}
		select {
		case <-ctx.Done():
			return nil, errors.Join(fmt.Errorf("lock %s: %w", path, ctx.Err()), f.Close())
		case <-time.After(200 * time.Millisecond):
		}
	}
}
