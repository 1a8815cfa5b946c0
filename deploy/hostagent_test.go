package deploy

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

const agentDir = "deploy/kubernetes/host-agent"

// agentManifests parses the host-agent kustomization's resources, which
// must be every other YAML file of its folder.
func agentManifests(t *testing.T) []manifest {
	t.Helper()
	kust := yamlDocs(t, repoPath(t, agentDir+"/kustomization.yaml"))
	if len(kust) != 1 || getString(kust[0], "kind") != "Kustomization" {
		t.Fatal("kustomization.yaml: want one Kustomization document")
	}
	resources := stringList(getList(kust[0], "resources"))
	files, err := filepath.Glob(repoPath(t, agentDir+"/*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var onDisk []string
	for _, f := range files {
		if b := filepath.Base(f); b != "kustomization.yaml" {
			onDisk = append(onDisk, b)
		}
	}
	if sorted := slices.Sorted(slices.Values(resources)); !slices.Equal(sorted, onDisk) {
		t.Errorf("kustomization resources %v, want every manifest of %s: %v", sorted, agentDir, onDisk)
	}
	var out []manifest
	for _, r := range resources {
		for _, d := range yamlDocs(t, repoPath(t, agentDir+"/"+r)) {
			m := manifest{file: r, doc: d}
			if getString(d, "metadata", "labels", "app.kubernetes.io/name") != "kafka-bench-host-agent" {
				t.Errorf("%s: %s %s lacks the label app.kubernetes.io/name: kafka-bench-host-agent", r, m.kind(), m.name())
			}
			out = append(out, m)
		}
	}
	return out
}

// TestHostAgentDaemonSet: one agent per node, in the node's network
// namespace, reading the node's /proc and /sys, unprivileged, running no
// probe; its args pass --config.check.
func TestHostAgentDaemonSet(t *testing.T) {
	ms := agentManifests(t)
	d := one(t, ms, "DaemonSet", "kafka-bench-host-agent").doc
	pod := getMap(d, "spec", "template", "spec")
	podLabels := getMap(d, "spec", "template", "metadata", "labels")
	for k, v := range getMap(d, "spec", "selector", "matchLabels") {
		if podLabels[k] != v {
			t.Errorf("selector %s=%v does not match the pod labels %v", k, v, podLabels)
		}
	}
	if get(pod, "hostNetwork") != true {
		t.Error("hostNetwork is not true: /proc/net/dev would list the pod's interfaces, not the node's")
	}
	if get(pod, "securityContext", "runAsNonRoot") != true || get(pod, "automountServiceAccountToken") != false {
		t.Error("the pod must run as non-root without a service-account token")
	}
	containers := getList(pod, "containers")
	if len(containers) != 1 {
		t.Fatalf("want one container, got %d", len(containers))
	}
	c := containers[0]
	for _, f := range []struct {
		key  string
		want any
	}{{"readOnlyRootFilesystem", true}, {"allowPrivilegeEscalation", false}, {"runAsNonRoot", true}} {
		if got := get(c, "securityContext", f.key); got != f.want {
			t.Errorf("container securityContext.%s = %v, want %v", f.key, got, f.want)
		}
	}
	if drop := stringList(getList(c, "securityContext", "capabilities", "drop")); !slices.Contains(drop, "ALL") {
		t.Errorf("capabilities.drop = %v, want ALL", drop)
	}

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

	// Probes on /-/healthy and /-/ready, port 10092.
	ports := getList(c, "ports")
	if len(ports) != 1 || get(ports[0], "containerPort") != 10092 {
		t.Fatalf("ports %v, want containerPort 10092", ports)
	}
	for probe, path := range map[string]string{"livenessProbe": "/-/healthy", "readinessProbe": "/-/ready"} {
		if got := getString(c, probe, "httpGet", "path"); got != path {
			t.Errorf("%s path %q, want %s", probe, got, path)
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

	// With kubectl on PATH, kustomize builds the folder.
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Log("kubectl is not on PATH: `kubectl kustomize` not run")
		return
	}
	cmd := exec.Command(kubectl, "kustomize", agentDir)
	cmd.Dir = root(t)
	built, err := cmd.Output()
	if err != nil {
		t.Fatalf("kubectl kustomize %s: %v", agentDir, err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(built))
	n := 0
	for {
		var doc map[string]any
		if dec.Decode(&doc) != nil {
			break
		}
		n++
	}
	if n != len(ms) {
		t.Errorf("kubectl kustomize produced %d objects, want %d:\n%s", n, len(ms), built)
	}
}
