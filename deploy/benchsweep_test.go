package deploy

import (
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kafka-bench/kafka_bench_exporter/bench/spec"
	"github.com/kafka-bench/kafka_bench_exporter/internal/doccheck"
)

const (
	sweepDir = "deploy/kubernetes/bench"
	sweepApp = "kafka-bench-sweep"
)

// sweep is the bench sweep's kustomization as kustomize builds it: the
// ConfigMaps are generated and BENCH_WORKERS is copied into the Job, so only
// the built output shows what is applied.
func sweep(t *testing.T) []manifest {
	t.Helper()
	raw := manifestsIn(t, sweepDir, sweepApp)
	out, docs := kustomizeBuild(t, sweepDir)
	validateManifests(t, "kustomize build "+sweepDir, out)
	var ms []manifest
	for _, d := range docs {
		m := manifest{file: "kustomize build " + sweepDir, doc: d}
		if getString(d, "metadata", "labels", "app.kubernetes.io/name") != sweepApp {
			t.Errorf("%s %s lacks the label app.kubernetes.io/name: %s", m.kind(), m.name(), sweepApp)
		}
		ms = append(ms, m)
	}
	// The resources plus the two generated ConfigMaps.
	if len(ms) != len(raw)+2 {
		t.Errorf("kustomize build produced %d objects, want %d", len(ms), len(raw)+2)
	}
	return ms
}

// generated is the ConfigMap kustomize generated from name (its name gets a
// hash suffix).
func generated(t *testing.T, ms []manifest, name string) manifest {
	t.Helper()
	var found []manifest
	for _, m := range ms {
		if rest, ok := strings.CutPrefix(m.name(), name+"-"); m.kind() == "ConfigMap" && ok && !strings.Contains(rest, "-") {
			found = append(found, m)
		}
	}
	if len(found) != 1 {
		t.Fatalf("want one ConfigMap generated from %s, got %d", name, len(found))
	}
	return found[0]
}

// container is the Job's one container, hardened like the Deployment's
// (hardenedPod for the workers, which serve /metrics; the same security
// settings for the merge).
func container(t *testing.T, job map[string]any) any {
	t.Helper()
	if rp := getString(job, "spec", "template", "spec", "restartPolicy"); rp != "Never" {
		t.Errorf("restartPolicy %q, want Never: a rerun worker has missed its windows", rp)
	}
	cs := getList(job, "spec", "template", "spec", "containers")
	if len(cs) != 1 {
		t.Fatalf("want one container, got %d", len(cs))
	}
	return cs[0]
}

// varRef is a $(NAME) reference in a container's args, which Kubernetes
// expands from the container's environment.
var varRef = regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_]*)\)`)

// runEnv checks that the container takes its environment from the run
// ConfigMap alone and that every $(NAME) of its args is one of its keys;
// it returns the ConfigMap's data.
func runEnv(t *testing.T, run manifest, c any) map[string]any {
	t.Helper()
	from := getList(c, "envFrom")
	if len(from) != 1 || getString(from[0], "configMapRef", "name") != run.name() {
		t.Errorf("%s: envFrom %v, want the ConfigMap %s", getString(c, "name"), from, run.name())
	}
	data := getMap(run.doc, "data")
	for _, a := range stringList(getList(c, "args")) {
		for _, m := range varRef.FindAllStringSubmatch(a, -1) {
			if _, ok := data[m[1]]; !ok {
				t.Errorf("%s: argument %q reads $(%s), which %s does not set: Kubernetes would pass it unexpanded", getString(c, "name"), a, m[1], run.name())
			}
		}
	}
	return data
}

// TestBenchSweep: N indexed workers spread over the nodes, N set once
// (BENCH_WORKERS), the bench file mounted from its generated ConfigMap, a
// merge Job with the same environment, and a PodMonitor on the workers.
func TestBenchSweep(t *testing.T) {
	ms := sweep(t)
	run := generated(t, ms, "kafka-bench-sweep-run")
	workers := one(t, ms, "Job", "kafka-bench-sweep-workers").doc
	merge := one(t, ms, "Job", "kafka-bench-sweep-merge").doc

	// N: completions = parallelism = BENCH_WORKERS, every index its own pod.
	wc := container(t, workers)
	env := runEnv(t, run, wc)
	n, err := strconv.Atoi(getString(env, "BENCH_WORKERS"))
	if err != nil || n < 1 {
		t.Fatalf("BENCH_WORKERS = %q, want a number >= 1", getString(env, "BENCH_WORKERS"))
	}
	if mode := getString(workers, "spec", "completionMode"); mode != "Indexed" {
		t.Errorf("completionMode %q, want Indexed (Kubernetes sets JOB_COMPLETION_INDEX)", mode)
	}
	for _, f := range []string{"completions", "parallelism"} {
		if got := get(workers, "spec", f); got != n {
			t.Errorf("spec.%s = %v, want BENCH_WORKERS = %d", f, got, n)
		}
	}
	if get(workers, "spec", "backoffLimitPerIndex") != 0 {
		t.Errorf("backoffLimitPerIndex = %v, want 0: a worker is not rerun, and its failure must not stop the others", get(workers, "spec", "backoffLimitPerIndex"))
	}
	for _, k := range []string{"BENCH_START_AT", "KAFKA_BROKERS"} {
		if getString(env, k) == "" {
			t.Errorf("%s sets no %s", run.name(), k)
		}
	}

	// Workers are spread over the nodes.
	podLabels := getMap(workers, "spec", "template", "metadata", "labels")
	spread := false
	for _, term := range getList(workers, "spec", "template", "spec", "affinity", "podAntiAffinity", "preferredDuringSchedulingIgnoredDuringExecution") {
		sel := getMap(term, "podAffinityTerm", "labelSelector", "matchLabels")
		matches := len(sel) > 0
		for k, v := range sel {
			matches = matches && podLabels[k] == v
		}
		spread = spread || matches && getString(term, "podAffinityTerm", "topologyKey") == "kubernetes.io/hostname"
	}
	if !spread {
		t.Error("no pod anti-affinity on kubernetes.io/hostname that selects the workers' pods")
	}

	// The worker runs bench on the mounted bench file, with fixed durations
	// so that all workers measure the same windows, and serves /metrics.
	hardenedPod(t, workers)
	args := stringList(getList(wc, "args"))
	if len(args) == 0 || args[0] != "bench" {
		t.Fatalf("worker args %v, want the bench command", args)
	}
	var file string
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "--bench.file="); ok {
			file = v
		}
	}
	if file == "" {
		t.Fatalf("worker args %v have no --bench.file=", args)
	}
	text := mountedFile(t, ms, getMap(workers, "spec", "template", "spec"), wc, file)
	b, err := spec.Parse([]byte(text))
	if err != nil {
		t.Fatalf("the mounted bench file: %v", err)
	}
	if b.Duration <= 0 {
		t.Errorf("the bench file sets num_records, want duration: only fixed durations align the workers' windows")
	}
	if b.Rounds != 1 || b.FindMaxRate || b.ConsumeOnly {
		t.Errorf("the bench file sets rounds %d, find_max_rate %v, consume_only %v: workers run none of them", b.Rounds, b.FindMaxRate, b.ConsumeOnly)
	}
	if !slices.Contains(args, "--web.listen-address=:10092") {
		t.Errorf("worker args %v do not serve /metrics on :10092", args)
	}

	// The merge: same image and environment, `bench merge`.
	mc := container(t, merge)
	runEnv(t, run, mc)
	if margs := stringList(getList(mc, "args")); len(margs) < 2 || margs[0] != "bench" || margs[1] != "merge" {
		t.Errorf("merge args %v, want bench merge ...", margs)
	}
	if getString(mc, "image") != getString(wc, "image") {
		t.Errorf("merge image %s, want the workers' %s", getString(mc, "image"), getString(wc, "image"))
	}
	for _, f := range []string{"runAsNonRoot", "readOnlyRootFilesystem"} {
		if get(mc, "securityContext", f) != true {
			t.Errorf("merge container securityContext.%s is not true", f)
		}
	}
	if get(merge, "spec", "backoffLimit") != 0 {
		t.Errorf("merge backoffLimit = %v, want 0: one pod, whose log is the job's", get(merge, "spec", "backoffLimit"))
	}

	// The PodMonitor scrapes the workers, not the merge.
	pm := one(t, ms, "PodMonitor", sweepApp).doc
	sel := getMap(pm, "spec", "selector", "matchLabels")
	for k, v := range sel {
		if podLabels[k] != v {
			t.Errorf("PodMonitor selector %s=%v does not match the workers' pod labels", k, v)
		}
	}
	mergeLabels := getMap(merge, "spec", "template", "metadata", "labels")
	selectsMerge := true
	for k, v := range sel {
		selectsMerge = selectsMerge && mergeLabels[k] == v
	}
	if selectsMerge {
		t.Error("PodMonitor selects the merge pod too, which serves no /metrics")
	}
	eps := getList(pm, "spec", "podMetricsEndpoints")
	if len(eps) != 1 || getString(eps[0], "port") != getString(wc, "ports", 0, "name") || getString(eps[0], "path") != "/metrics" {
		t.Fatalf("PodMonitor endpoints %v, want port %q path /metrics", eps, getString(wc, "ports", 0, "name"))
	}
	// Each worker's series keep its index: summed, they are the sweep.
	labelled := false
	for _, r := range getList(eps[0], "relabelings") {
		src := stringList(getList(r, "sourceLabels"))
		labelled = labelled || getString(r, "targetLabel") == "worker" && slices.Equal(src, []string{"__meta_kubernetes_pod_annotation_batch_kubernetes_io_job_completion_index"})
	}
	if !labelled {
		t.Error("PodMonitor sets no worker label from the pod's completion index")
	}
}

// The variables and flags the manifests give the bench command exist in its
// CLI: a rename on either side fails here. JOB_COMPLETION_INDEX is set by
// Kubernetes in an Indexed Job, the others come from run.env and start.env
// or are left to the flags' defaults (BENCH_RUN, BENCH_RESULTS_TOPIC: the
// workers and the merge must agree, so both take them from the same place).
func TestBenchSweepCLIContract(t *testing.T) {
	ms := sweep(t)
	help, err := exec.Command(exporterBinary(t), "bench", "--help").CombinedOutput()
	if err != nil {
		t.Fatalf("bench --help: %v\n%s", err, help)
	}
	envs := []string{"JOB_COMPLETION_INDEX", "BENCH_RUN", "BENCH_RESULTS_TOPIC"}
	for k := range getMap(generated(t, ms, "kafka-bench-sweep-run").doc, "data") {
		if k != "KAFKA_BROKERS" { // only expanded into --kafka.brokers=$(KAFKA_BROKERS)
			envs = append(envs, k)
		}
	}
	for _, e := range envs {
		if !strings.Contains(string(help), "($"+e+")") {
			t.Errorf("no flag of bench reads the environment variable %s the manifests rely on", e)
		}
	}
	for _, name := range []string{"kafka-bench-sweep-workers", "kafka-bench-sweep-merge"} {
		c := container(t, one(t, ms, "Job", name).doc)
		for _, a := range stringList(getList(c, "args")) {
			flag, _, _ := strings.Cut(a, "=")
			if strings.HasPrefix(flag, "--") && !strings.Contains(string(help), flag+"=") && !strings.Contains(string(help), flag+" ") {
				t.Errorf("%s: flag %s is not among bench's flags", name, flag)
			}
		}
	}
}

// docs/scale-out.md's "Scale a bench out" table names every file of the folder but the
// kustomization, and no other.
func TestBenchSweepDocs(t *testing.T) {
	d, err := doccheck.Load(root(t), "docs/scale-out.md")
	if err != nil {
		t.Fatal(err)
	}
	text, _, err := d.Section("Scale a bench out")
	if err != nil {
		t.Fatal(err)
	}
	var documented []string
	for _, row := range regexp.MustCompile("(?m)^\\| (`[^|]+)\\|").FindAllStringSubmatch(text, -1) {
		documented = append(documented, doccheck.Code(row[1])...)
	}
	entries, err := os.ReadDir(repoPath(t, sweepDir))
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, e := range entries {
		if e.Name() != "kustomization.yaml" {
			files = append(files, e.Name())
		}
	}
	slices.Sort(documented)
	if !slices.Equal(documented, files) {
		t.Errorf("docs/scale-out.md \"Scale a bench out\" lists %v, want the files of %s but kustomization.yaml: %v", documented, sweepDir, files)
	}
}
