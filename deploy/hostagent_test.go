package deploy

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const agentDir = "deploy/kubernetes/host-agent"

// TestHostAgentDaemonSet: one agent per node, in the node's network
// namespace, reading the node's /proc and /sys, unprivileged, running no
// probe; its args pass --config.check.
func TestHostAgentDaemonSet(t *testing.T) {
	ms := manifestsIn(t, agentDir, "kafka-bench-host-agent")
	d := one(t, ms, "DaemonSet", "kafka-bench-host-agent").doc
	pod := getMap(d, "spec", "template", "spec")
	if get(pod, "hostNetwork") != true {
		t.Error("hostNetwork is not true: /proc/net/dev would list the pod's interfaces, not the node's")
	}
	c := hardenedPod(t, d)

	// HOST_PROC and HOST_SYS point at read-only mounts of the node's /proc
	// and /sys.
	env := map[string]string{}
	for _, e := range getList(c, "env") {
		env[getString(e, "name")] = getString(e, "value")
	}
	hostPaths := map[string]string{}
	for _, v := range getList(pod, "volumes") {
		hostPaths[getString(v, "name")] = getString(v, "hostPath", "path")
	}
	for envName, node := range map[string]string{"HOST_PROC": "/proc", "HOST_SYS": "/sys"} {
		found := false
		for _, vm := range getList(c, "volumeMounts") {
			if getString(vm, "mountPath") == env[envName] && hostPaths[getString(vm, "name")] == node && get(vm, "readOnly") == true {
				found = true
			}
		}
		if !found {
			t.Errorf("%s=%q is not a read-only mount of the node's %s", envName, env[envName], node)
		}
	}

	// The args run no probe and are valid flags.
	args := stringList(getList(c, "args"))
	if !slices.Contains(args, "--no-probes") || !slices.Contains(args, "--web.listen-address=:10092") {
		t.Errorf("args %v, want --no-probes and --web.listen-address=:10092", args)
	}
	out, err := exec.Command(exporterBinary(t), append(args, "--config.check")...).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "probes: []") {
		t.Errorf("DaemonSet args --config.check: %v, want probes: []\n%s", err, out)
	}

	// The PodMonitor scrapes the named port of these pods.
	ports := getList(c, "ports")
	podLabels := getMap(d, "spec", "template", "metadata", "labels")
	pm := one(t, ms, "PodMonitor", "kafka-bench-host-agent").doc
	for k, v := range getMap(pm, "spec", "selector", "matchLabels") {
		if podLabels[k] != v {
			t.Errorf("PodMonitor selector %s=%v does not match the pod labels", k, v)
		}
	}
	eps := getList(pm, "spec", "podMetricsEndpoints")
	if len(eps) != 1 || getString(eps[0], "port") != getString(ports[0], "name") || getString(eps[0], "path") != "/metrics" {
		t.Errorf("PodMonitor endpoints %v, want port %q path /metrics", eps, getString(ports[0], "name"))
	}

	// kustomize builds the folder into valid objects.
	checkKustomizeBuild(t, agentDir, len(ms))
}
