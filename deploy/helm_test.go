package deploy

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/kafka-bench/kafka_bench_exporter/dashboards"
	"github.com/kafka-bench/kafka_bench_exporter/internal/testcerts"
)

const (
	release       = "kafka-bench-exporter"
	namespace     = "monitoring"
	allOnValues   = ChartDir + "/ci/all-on-values.yaml"
	minimalValues = ChartDir + "/ci/minimal-values.yaml"
	helmTestdata  = "deploy/testdata/helm"
	secretsPrefix = "/var/run/secrets/kafka-bench-exporter"
)

var helmBinary madeOnce

// helmCLI is the Helm CLI of scripts/helm.sh, built from its Go module into
// the cache when missing (scripts/test.sh builds it before the tests).
func helmCLI(t testing.TB) string {
	t.Helper()
	return scriptTool(t, &helmBinary, "scripts/helm.sh")
}

// helm runs the Helm CLI with its state in a temporary directory.
func helm(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	home := t.TempDir()
	cmd := exec.Command(helmCLI(t), args...)
	cmd.Dir = root(t)
	cmd.Env = append(os.Environ(), "HELM_CACHE_HOME="+home+"/cache", "HELM_CONFIG_HOME="+home+"/config",
		"HELM_DATA_HOME="+home+"/data", "KUBECONFIG="+home+"/kubeconfig")
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	return o.String(), e.String(), err
}

// helmTemplate renders the chart with extra flags (--values, --set) and
// returns its objects, after checking that they are valid Kubernetes objects.
func helmTemplate(t *testing.T, what string, flags ...string) []manifest {
	t.Helper()
	args := append([]string{"template", release, ChartDir, "--namespace", namespace}, flags...)
	out, stderr, err := helm(t, args...)
	if err != nil {
		t.Fatalf("helm %s: %v\n%s", strings.Join(args, " "), err, stderr)
	}
	validateManifests(t, "helm template ("+what+")", []byte(out))
	f := filepath.Join(t.TempDir(), "rendered.yaml")
	if err := os.WriteFile(f, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	var ms []manifest
	for _, d := range yamlDocs(t, f) {
		m := manifest{file: "helm template (" + what + ")", doc: d}
		if getString(d, "metadata", "labels", "app.kubernetes.io/name") != AppName {
			t.Errorf("%s %s lacks the label app.kubernetes.io/name: %s", m.kind(), m.name(), AppName)
		}
		ms = append(ms, m)
	}
	return ms
}

func kinds(ms []manifest) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.kind())
	}
	sort.Strings(out)
	return out
}

func TestHelmLint(t *testing.T) {
	for _, values := range [][]string{nil, {allOnValues}, {minimalValues}} {
		args := []string{"lint", "--strict", ChartDir, "--namespace", namespace}
		for _, v := range values {
			args = append(args, "--values", v)
		}
		if out, stderr, err := helm(t, args...); err != nil {
			t.Errorf("helm %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr)
		}
	}
}

// With the default values: the exporter, its Service and its config, as the
// kustomize base has them.
func TestHelmDefaults(t *testing.T) {
	ms := helmTemplate(t, "default values")
	// The Pod is helm test's.
	if got, want := kinds(ms), []string{"ConfigMap", "Deployment", "Pod", "Service"}; !slices.Equal(got, want) {
		t.Errorf("kinds %v, want %v", got, want)
	}
	d := chartExporter(t, ms)
	if p := getString(d.container, "readinessProbe", "httpGet", "path"); p != "/-/ready" {
		t.Errorf("readinessProbe path %q, want /-/ready", p)
	}
	if len(getList(d.pod, "volumes")) != 1 {
		t.Errorf("volumes %v, want only the config", getList(d.pod, "volumes"))
	}
}

// The configuration from a ConfigMap of the user's.
func TestHelmExistingConfigMap(t *testing.T) {
	ms := helmTemplate(t, "existingConfigMap", "--set", "existingConfigMap=my-config", "--set", "helmTest.enabled=false")
	if got, want := kinds(ms), []string{"Deployment", "Service"}; !slices.Equal(got, want) {
		t.Errorf("kinds %v, want %v", got, want)
	}
	pod := getMap(one(t, ms, "Deployment", "").doc, "spec", "template", "spec")
	if v := getString(pod, "volumes", 0, "configMap", "name"); v != "my-config" {
		t.Errorf("config volume from ConfigMap %q, want my-config", v)
	}
}

// AWS_MSK_IAM needs no Secret: the mechanism is set in config, the
// credentials come from the pod's AWS chain, on EKS through the chart's
// ServiceAccount (IRSA's role-arn annotation, or an EKS Pod Identity
// association with that ServiceAccount).
func TestHelmAWSMSKIAM(t *testing.T) {
	const role = "arn:aws:iam::123456789012:role/kafka-bench"
	ms := helmTemplate(t, "aws", "--set", "config.kafka.brokers={b-1.msk.example:9098}",
		"--set-json", `config.kafka.tls={"enabled":true}`,
		"--set-json", `config.kafka.sasl={"mechanism":"AWS_MSK_IAM","aws":{"region":"eu-west-1"}}`,
		"--set", "serviceAccount.create=true",
		"--set-json", `serviceAccount.annotations={"eks.amazonaws.com/role-arn":"`+role+`"}`)
	d := chartExporter(t, ms)
	sa := one(t, ms, "ServiceAccount", "").doc
	if a := getString(sa, "metadata", "annotations", "eks.amazonaws.com/role-arn"); a != role {
		t.Errorf("ServiceAccount annotations %v, want the IRSA role %s", getMap(sa, "metadata", "annotations"), role)
	}
	if n, want := getString(d.pod, "serviceAccountName"), getString(sa, "metadata", "name"); n != want {
		t.Errorf("pod serviceAccountName %q, want the chart's ServiceAccount %q", n, want)
	}
	if c := getString(one(t, ms, "ConfigMap", "").doc, "data", "config.yml"); !strings.Contains(c, "mechanism: AWS_MSK_IAM") {
		t.Errorf("config.yml does not set AWS_MSK_IAM:\n%s", c)
	}
}

// With every optional part on.
func TestHelmAllOn(t *testing.T) {
	ms := helmTemplate(t, "all on", "--values", allOnValues)
	// One PodMonitor: the host agent's. No helm test Pod: basic auth is on.
	want := []string{"ConfigMap", "DaemonSet", "Deployment", "PodMonitor", "PrometheusRule", "Service", "ServiceAccount", "ServiceMonitor"}
	names, err := dashboards.FileNames()
	if err != nil {
		t.Fatal(err)
	}
	for range names {
		want = append(want, "ConfigMap")
	}
	sort.Strings(want)
	if got := kinds(ms); !slices.Equal(got, want) {
		t.Errorf("kinds %v, want %v", got, want)
	}
	const fullname = "kafka-bench-exporter-prod"
	d := chartExporter(t, ms)

	// The Secrets of the values are mounted; the kubelet cannot pass basic
	// auth, so the checks are TCP.
	secrets := map[string]bool{}
	for _, v := range getList(d.pod, "volumes") {
		if s := getString(v, "secret", "secretName"); s != "" {
			secrets[s] = true
		}
	}
	for _, s := range []string{"my-cluster-cluster-ca-cert", "kafka-bench-exporter-user", "kafka-bench-exporter-scram", "kafka-bench-exporter-web"} {
		if !secrets[s] {
			t.Errorf("Secret %s is not mounted (volumes %v)", s, getList(d.pod, "volumes"))
		}
	}
	if get(d.container, "readinessProbe", "tcpSocket", "port") != "http-metrics" {
		t.Errorf("readinessProbe %v, want a TCP check with basic auth on", get(d.container, "readinessProbe"))
	}
	if !slices.Contains(stringList(getList(d.container, "args")), "--log.level=debug") {
		t.Errorf("args %v lack extraArgs", getList(d.container, "args"))
	}

	// Scraping: instance and cluster are the configured names; the
	// exporter-health alerts match the ServiceMonitor's job (the Service's
	// name).
	sm := one(t, ms, "ServiceMonitor", fullname).doc
	svc := one(t, ms, "Service", fullname).doc
	if !selects(getMap(sm, "spec", "selector", "matchLabels"), getMap(svc, "metadata", "labels")) {
		t.Errorf("ServiceMonitor selector does not match the Service labels %v", getMap(svc, "metadata", "labels"))
	}
	ep := getMap(sm, "spec", "endpoints", 0)
	if ep["port"] != getString(svc, "spec", "ports", 0, "name") || ep["path"] != "/metrics" || ep["scheme"] != "https" {
		t.Errorf("ServiceMonitor endpoint %v, want the Service's port, /metrics and the values' scheme https", ep)
	}
	checkInstanceRelabeling(t, "ServiceMonitor", getList(ep, "relabelings"), "prod-cluster", 3)

	// The rules are those of alerts/, with the release's job.
	pr := one(t, ms, "PrometheusRule", fullname).doc
	if got, want := getList(pr, "spec", "groups"), chartAlertGroups(t, `job="`+getString(svc, "metadata", "name")+`"`, "KafkaBenchLoadGeneratorSaturated"); !reflect.DeepEqual(got, want) {
		t.Errorf("the PrometheusRule's spec.groups differ from the groups of alerts/*.yml with the release's job:\n%v\nwant\n%v", got, want)
	}
	if getString(pr, "metadata", "labels", "release") != "prometheus" {
		t.Errorf("PrometheusRule labels %v lack release: prometheus", getMap(pr, "metadata", "labels"))
	}
	for _, n := range names {
		name := strings.Replace(DashboardConfigMapName(n), AppName, fullname, 1)
		cm := one(t, ms, "ConfigMap", name).doc
		if v := getString(cm, "metadata", "labels", DashboardLabel); v != "1" {
			t.Errorf("ConfigMap %s: label %s = %q, want \"1\"", name, DashboardLabel, v)
		}
		if v := getString(cm, "metadata", "annotations", DashboardFolderAnnotation); v != DashboardFolder {
			t.Errorf("ConfigMap %s: annotation %s = %q, want %q", name, DashboardFolderAnnotation, v, DashboardFolder)
		}
		if ns := getString(cm, "metadata", "namespace"); ns != "grafana" {
			t.Errorf("ConfigMap %s in namespace %q, want the values' grafana", name, ns)
		}
		want, err := dashboards.Files.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		if data := getMap(cm, "data"); len(data) != 1 || data[n] != string(want) {
			t.Errorf("ConfigMap %s: data is not exactly {%s: dashboards/%s}", name, n, n)
		}
	}

	checkHostAgent(t, ms, fullname)
	checkFleetValues(t, ms, d, fullname)
}

// selects reports whether matchLabels select an object with these labels.
func selects(matchLabels, labels map[string]any) bool {
	for k, v := range matchLabels {
		if labels[k] != v {
			return false
		}
	}
	return len(matchLabels) > 0
}

func checkInstanceRelabeling(t *testing.T, what string, relabelings []any, instance string, n int) {
	t.Helper()
	if len(relabelings) != n || getString(relabelings[0], "targetLabel") != "instance" || getString(relabelings[0], "replacement") != instance {
		t.Errorf("%s relabelings %v, want instance=%s first and %d in all", what, relabelings, instance, n)
	}
}

// checkHostAgent: the DaemonSet runs the exporter as a host agent on the
// node's network, scraped with the node's name as instance.
func checkHostAgent(t *testing.T, ms []manifest, fullname string) {
	t.Helper()
	ds := one(t, ms, "DaemonSet", fullname+"-host-agent").doc
	pod := getMap(ds, "spec", "template", "spec")
	if get(pod, "hostNetwork") != true {
		t.Error("host agent: hostNetwork is not true; the interfaces would be the pod's")
	}
	c := getMap(pod, "containers", 0)
	args := stringList(getList(c, "args"))
	if !slices.Contains(args, "--no-probes") {
		t.Errorf("host agent args %v lack --no-probes", args)
	}
	pm := one(t, ms, "PodMonitor", fullname+"-host-agent").doc
	agentPods := getMap(ds, "spec", "template", "metadata", "labels")
	exporterPods := getMap(one(t, ms, "Deployment", fullname).doc, "spec", "template", "metadata", "labels")
	if !selects(getMap(pm, "spec", "selector", "matchLabels"), agentPods) {
		t.Errorf("host agent PodMonitor selector does not match its pods %v", agentPods)
	}
	// No selector takes the other's pods: the Deployment would adopt the
	// agents, the Service and the exporter's PodMonitor would scrape them.
	for what, sel := range map[string]map[string]any{
		"Deployment selector": getMap(one(t, ms, "Deployment", fullname).doc, "spec", "selector", "matchLabels"),
		"Service selector":    getMap(one(t, ms, "Service", fullname).doc, "spec", "selector"),
		// The all-on values use the ServiceMonitor: the PodMonitor instead.
		"exporter PodMonitor selector": getMap(one(t, helmTemplate(t, "all on, PodMonitor", "--values", allOnValues,
			"--set", "serviceMonitor.enabled=false", "--set", "podMonitor.enabled=true"), "PodMonitor", fullname).doc, "spec", "selector", "matchLabels"),
	} {
		if selects(sel, agentPods) {
			t.Errorf("%s %v selects the host agent's pods %v", what, sel, agentPods)
		}
	}
	if sel := getMap(ds, "spec", "selector", "matchLabels"); selects(sel, exporterPods) {
		t.Errorf("host agent DaemonSet selector %v selects the exporter's pods %v", sel, exporterPods)
	}
	if r := getList(pm, "spec", "podMetricsEndpoints", 0, "relabelings"); len(r) != 1 || getString(r[0], "targetLabel") != "instance" ||
		!slices.Contains(stringList(getList(r[0], "sourceLabels")), "__meta_kubernetes_pod_node_name") {
		t.Errorf("host agent relabelings %v, want instance from the node's name", r)
	}
	help, _ := exec.Command(exporterBinary(t), "--help").CombinedOutput()
	if !strings.Contains(string(help), "no-probes") {
		t.Log("the exporter has no --no-probes flag yet: the host agent's arguments are not checked with --config.check")
		return
	}
	root := mountPodFiles(t, ms, pod, c)
	configCheck(t, "host agent DaemonSet args", rebase(args, root, c))
}

// exporterPod is the exporter's Deployment, its pod spec and container.
type exporterPod struct {
	pod, container map[string]any
	podLabels      map[string]any
}

// chartExporter checks the Deployment and Service the chart renders against
// the kustomize base's — one replica, Recreate, the same security context
// and resources — and that the exporter accepts the configuration file and
// flags they give it.
func chartExporter(t *testing.T, ms []manifest) exporterPod {
	t.Helper()
	d := one(t, ms, "Deployment", "").doc
	kd := one(t, manifests(t), "Deployment", AppName).doc
	pod := getMap(d, "spec", "template", "spec")
	kpod := getMap(kd, "spec", "template", "spec")
	c := getMap(pod, "containers", 0)
	kc := getMap(kpod, "containers", 0)
	if r := get(d, "spec", "replicas"); r != 1 {
		t.Errorf("replicas = %v, want 1 (replicas would share the probes' topics and groups)", r)
	}
	if s := getString(d, "spec", "strategy", "type"); s != "Recreate" {
		t.Errorf("strategy %q, want Recreate", s)
	}
	for _, f := range []struct {
		what      string
		got, want any
	}{
		{"pod securityContext", pod["securityContext"], kpod["securityContext"]},
		{"automountServiceAccountToken", pod["automountServiceAccountToken"], kpod["automountServiceAccountToken"]},
		{"container securityContext", c["securityContext"], kc["securityContext"]},
		{"resources", c["resources"], kc["resources"]},
		{"ports", c["ports"], kc["ports"]},
		{"GOMEMLIMIT", getList(c, "env")[0], getList(kc, "env")[0]},
	} {
		if !reflect.DeepEqual(f.got, f.want) {
			t.Errorf("%s %v differs from deploy/kubernetes/deployment.yaml's %v", f.what, f.got, f.want)
		}
	}
	podLabels := getMap(d, "spec", "template", "metadata", "labels")
	if !selects(getMap(d, "spec", "selector", "matchLabels"), podLabels) {
		t.Errorf("Deployment selector does not match the pod labels %v", podLabels)
	}

	svc := one(t, ms, "Service", "").doc
	ksvc := one(t, manifests(t), "Service", AppName).doc
	if !selects(getMap(svc, "spec", "selector"), podLabels) {
		t.Errorf("Service selector does not match the pod labels %v", podLabels)
	}
	for _, f := range []string{"ports", "publishNotReadyAddresses"} {
		if !reflect.DeepEqual(getMap(svc, "spec")[f], getMap(ksvc, "spec")[f]) {
			t.Errorf("Service %s %v differs from deploy/kubernetes/service.yaml's", f, getMap(svc, "spec")[f])
		}
	}

	// The pod's files, as mounted, and its flags pass --config.check.
	root := mountPodFiles(t, ms, pod, c)
	configCheck(t, "the chart's Deployment args and config.yml", rebase(stringList(getList(c, "args")), root, c))
	return exporterPod{pod: pod, container: c, podLabels: podLabels}
}

// secretFixtures are the contents of the Secret keys the test values name.
func secretFixtures(t *testing.T) map[string][]byte {
	t.Helper()
	set, err := testcerts.Generate(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := map[string][]byte{
		"password":      []byte("s3cret\n"),
		"client-secret": []byte("oauth-s3cret\n"),
		"token":         []byte("eyJhbGciOiJub25lIn0.eyJzdWIiOiJrYWZrYS1iZW5jaCJ9.\n"),
		"krb5.conf":     []byte("[libdefaults]\n default_realm = CORP.EXAMPLE\n"),
		"keytab":        testcerts.Keytab(t, "kafka-bench", "CORP.EXAMPLE", "pw"),
		// The exporter reads --web.config.file only when it serves.
		"web.yml": []byte("{}\n"),
	}
	for key, file := range map[string]string{"ca.crt": set.CAFile, "user.crt": set.ClientCertFile, "user.key": set.ClientKeyFile} {
		f[key] = readFile(t, file)
	}
	return f
}

// mountPodFiles recreates the container's mounted volumes below a temporary
// root: ConfigMaps from the rendered objects, Secrets from secretFixtures;
// paths in the files are rebased too. It returns the root.
func mountPodFiles(t *testing.T, ms []manifest, pod, c map[string]any) string {
	t.Helper()
	root := t.TempDir()
	fixtures := secretFixtures(t)
	for _, vm := range getList(c, "volumeMounts") {
		dir := filepath.Join(root, getString(vm, "mountPath"))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		var vol any
		for _, v := range getList(pod, "volumes") {
			if getString(v, "name") == getString(vm, "name") {
				vol = v
			}
		}
		files := map[string][]byte{}
		switch {
		case getString(vol, "configMap", "name") != "":
			cm := one(t, ms, "ConfigMap", getString(vol, "configMap", "name"))
			for k, v := range getMap(cm.doc, "data") {
				files[k] = []byte(rebaseText(v.(string), root, c))
			}
		case getString(vol, "secret", "secretName") != "":
			for _, it := range getList(vol, "secret", "items") {
				b, ok := fixtures[getString(it, "key")]
				if !ok {
					t.Fatalf("Secret %s: no fixture for key %s", getString(vol, "secret", "secretName"), getString(it, "key"))
				}
				files[getString(it, "path")] = b
			}
		case get(vol, "emptyDir") != nil:
			// An empty directory (an extraVolume).
		default:
			t.Fatalf("volume %v is neither a ConfigMap, a Secret nor an emptyDir", vol)
		}
		for name, b := range files {
			if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	return root
}

// rebase moves every mounted path in args below root.
func rebase(args []string, root string, c map[string]any) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = rebaseText(a, root, c)
	}
	return out
}

func rebaseText(s, root string, c map[string]any) string {
	for _, vm := range getList(c, "volumeMounts") {
		mp := regexp.QuoteMeta(getString(vm, "mountPath"))
		s = regexp.MustCompile(`(^|[=\s])`+mp+`/`).ReplaceAllString(s, "${1}"+root+getString(vm, "mountPath")+"/")
	}
	return s
}

// A values file that breaks values.schema.json fails at install time, with
// a message naming the key. Each testdata file holds its exact message.
func TestHelmValuesSchema(t *testing.T) {
	files, err := filepath.Glob(repoPath(t, helmTestdata+"/invalid-*-values.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no %s/invalid-*-values.yaml (%v)", helmTestdata, err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			first, _, _ := strings.Cut(string(readFile(t, f)), "\n")
			want, ok := strings.CutPrefix(first, "# want: ")
			if !ok {
				t.Fatalf("first line %q is not # want: <the schema error>", first)
			}
			_, stderr, err := helm(t, "template", release, ChartDir, "--values", f)
			if err == nil {
				t.Fatal("helm template accepted the values")
			}
			if !strings.Contains(stderr, "values don't meet the specifications of the schema") || !strings.Contains(stderr, "\n- "+want+"\n") {
				t.Errorf("helm template: %v\n%s\nwant a schema error naming %q", err, stderr, want)
			}
		})
	}
}

// chartAlertGroups are the groups of alerts/*.yml as the chart renders them:
// the exporter-health alerts matching jobSelector, without the alerts
// switched off.
func chartAlertGroups(t *testing.T, jobSelector string, off ...string) []any {
	t.Helper()
	b := readFile(t, repoPath(t, ChartRuleGroupsFile))
	b = bytes.ReplaceAll(b, []byte(ChartJobSelector), []byte(jobSelector))
	var f struct {
		Groups []map[string]any `yaml:"groups"`
	}
	if err := yaml.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	var out []any
	for _, g := range f.Groups {
		var rules []any
		for _, r := range g["rules"].([]any) {
			if a, _ := r.(map[string]any)["alert"].(string); slices.Contains(off, a) {
				continue
			}
			rules = append(rules, r)
		}
		if len(rules) > 0 {
			out = append(out, map[string]any{"name": g["name"], "rules": rules})
		}
	}
	return out
}
