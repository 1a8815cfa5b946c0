package deploy

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/kafka-bench/kafka_bench_exporter/alerts"
	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/dashboards"
	"github.com/kafka-bench/kafka_bench_exporter/internal/testenv"
)

// The Deployment's requests are sized from this measurement (see the comment
// in deploy/kubernetes/deployment.yaml); the test keeps them at least as
// large. docs/benchmarks.md, "Always-on cost": one probe, 1,000 rec/s × 1 KiB,
// against a real broker: 0.153 cores; RSS 26 MiB, 71.5 MiB at its peak
// during a 20 s broker stall.
const (
	measuredCores  = 0.16
	measuredRSSMiB = 72
)

const k8sDir = "deploy/kubernetes"

// manifest is one YAML document of deploy/kubernetes.
type manifest struct {
	file string
	doc  map[string]any
}

func (m manifest) kind() string { return getString(m.doc, "kind") }
func (m manifest) name() string { return getString(m.doc, "metadata", "name") }

// manifests parses every document of every resource of the kustomization
// and checks the fields every object needs.
func manifests(t *testing.T) []manifest { return manifestsIn(t, k8sDir, AppName) }

// manifestsIn is manifests of the kustomization in dir, whose objects all
// carry the label app.kubernetes.io/name: app.
func manifestsIn(t *testing.T, dir, app string) []manifest {
	t.Helper()
	kust := yamlDocs(t, repoPath(t, dir+"/kustomization.yaml"))
	if len(kust) != 1 || getString(kust[0], "kind") != "Kustomization" {
		t.Fatalf("kustomization.yaml: want one Kustomization document")
	}
	resources := stringList(getList(kust[0], "resources"))
	files, err := filepath.Glob(repoPath(t, dir+"/*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var onDisk []string
	for _, f := range files {
		if b := filepath.Base(f); b != "kustomization.yaml" {
			onDisk = append(onDisk, b)
		}
	}
	sorted := slices.Sorted(slices.Values(resources))
	if !slices.Equal(sorted, onDisk) {
		t.Errorf("kustomization resources %v, want every manifest of %s: %v", sorted, dir, onDisk)
	}
	var out []manifest
	for _, r := range resources {
		docs := yamlDocs(t, repoPath(t, dir+"/"+r))
		if len(docs) == 0 {
			t.Errorf("%s: no YAML document", r)
		}
		for i, d := range docs {
			m := manifest{file: r, doc: d}
			for _, f := range []string{"apiVersion", "kind"} {
				if getString(d, f) == "" {
					t.Errorf("%s: document %d has no %s", r, i+1, f)
				}
			}
			if m.name() == "" {
				t.Errorf("%s: document %d has no metadata.name", r, i+1)
			}
			if getString(d, "metadata", "labels", "app.kubernetes.io/name") != app {
				t.Errorf("%s: %s %s lacks the label app.kubernetes.io/name: %s", r, m.kind(), m.name(), app)
			}
			out = append(out, m)
		}
	}
	return out
}

// one returns the single object of a kind (and name, when given).
func one(t *testing.T, ms []manifest, kind, name string) manifest {
	t.Helper()
	var found []manifest
	for _, m := range ms {
		if m.kind() == kind && (name == "" || m.name() == name) {
			found = append(found, m)
		}
	}
	if len(found) != 1 {
		t.Fatalf("want exactly one %s %s, got %d", kind, name, len(found))
	}
	return found[0]
}

func TestGeneratedManifestsUpToDate(t *testing.T) {
	files, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	names, err := dashboards.FileNames()
	if err != nil {
		t.Fatal(err)
	}
	if want := 3 + len(names); len(files) != want {
		t.Errorf("Generate returned %d files, want %d", len(files), want)
	}
	// No copy of a dashboard that is gone from dashboards/.
	copies, err := filepath.Glob(repoPath(t, ChartDashboardsDir+"/*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range copies {
		if files[ChartDashboardsDir+"/"+filepath.Base(c)] == nil {
			t.Errorf("%s is not generated from dashboards/: remove it", c)
		}
	}
	for p, want := range files {
		got, err := os.ReadFile(repoPath(t, p))
		if err != nil {
			t.Errorf("%s: %v; run `go generate ./mixin`", p, err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from the mixin: run `go generate ./mixin` and commit the result", p)
		}
	}
}

func TestKubernetesKinds(t *testing.T) {
	ms := manifests(t)
	var kinds []string
	for _, m := range ms {
		kinds = append(kinds, m.kind())
	}
	sort.Strings(kinds)
	// ConfigMaps: the exporter's configuration and one per dashboard
	// (Overview, Compare, Consumer groups).
	want := []string{"ConfigMap", "ConfigMap", "ConfigMap", "ConfigMap", "Deployment", "PrometheusRule", "Service", "ServiceMonitor"}
	if !slices.Equal(kinds, want) {
		t.Errorf("kinds %v, want %v", kinds, want)
	}
}

func TestDeployment(t *testing.T) {
	ms := manifests(t)
	d := one(t, ms, "Deployment", AppName).doc
	pod := getMap(d, "spec", "template", "spec")

	if r := get(d, "spec", "replicas"); r != 1 {
		t.Errorf("replicas = %v, want 1 (replicas would share the probes' topics and groups)", r)
	}
	if s := getString(d, "spec", "strategy", "type"); s != "Recreate" {
		t.Errorf("strategy %q, want Recreate", s)
	}
	c := hardenedPod(t, d)
	if !slices.Contains(stringList(getList(c, "args")), "--web.listen-address=:10092") {
		t.Errorf("args %v do not listen on :10092", getList(c, "args"))
	}
	// configmap.yaml and docs/deploy.md reload with POST /-/reload.
	if !slices.Contains(stringList(getList(c, "args")), "--web.enable-lifecycle") {
		t.Errorf("args %v lack --web.enable-lifecycle: the documented POST /-/reload would answer 403", getList(c, "args"))
	}

	// The image is the one the kustomization sets.
	kust := yamlDocs(t, repoPath(t, k8sDir+"/kustomization.yaml"))[0]
	image, _, _ := strings.Cut(getString(c, "image"), ":")
	var names []string
	for _, im := range getList(kust, "images") {
		names = append(names, getString(im, "name"))
	}
	if !slices.Contains(names, image) {
		t.Errorf("image %s is not among the kustomization's images %v", image, names)
	}

	// The config file: args → volumeMount → ConfigMap key; it passes
	// --config.check with exactly these args.
	args := stringList(getList(c, "args"))
	cfgText, cfgPath := mountedConfig(t, ms, pod, c, args)
	tmp := filepath.Join(t.TempDir(), "config.yml")
	if err := os.WriteFile(tmp, []byte(cfgText), 0o600); err != nil {
		t.Fatal(err)
	}
	checked, _ := replaceConfigFile(t, args, tmp)
	configCheck(t, "Deployment args with "+cfgPath, checked)
	cfg, err := config.LoadFile(tmp)
	if err != nil {
		t.Fatal(err)
	}

	// Resources: requests cover the measurement, the memory limit also
	// every probe's full producer buffer (buffer.memory).
	req, lim := getMap(c, "resources", "requests"), getMap(c, "resources", "limits")
	if req["cpu"] == nil || req["memory"] == nil || lim["memory"] == nil {
		t.Fatalf("resources %v: want requests.cpu, requests.memory and limits.memory", getMap(c, "resources"))
	}
	if got := quantity(t, req["cpu"]); got < measuredCores {
		t.Errorf("requests.cpu %v < the measured %.2f cores", req["cpu"], measuredCores)
	}
	reqMem := quantity(t, req["memory"])
	if reqMem < measuredRSSMiB*(1<<20) {
		t.Errorf("requests.memory %v < the measured %d MiB", req["memory"], measuredRSSMiB)
	}
	var buffers float64
	for _, p := range cfg.Probes {
		buffers += float64(p.Producer.BufferMemory)
	}
	if got := quantity(t, lim["memory"]); got < reqMem+buffers {
		t.Errorf("limits.memory %v < requests.memory + the probes' buffer.memory (%.0f MiB)", lim["memory"], (reqMem+buffers)/(1<<20))
	}

	checkSecretReference(t, pod, c, cfgText)
}

// hardenedPod checks a workload's pod template — the selector matches its
// labels; non-root, RuntimeDefault seccomp, no service-account token; one
// container, read-only, without privilege escalation or capabilities — and
// returns the container.
func hardenedPod(t *testing.T, d map[string]any) any {
	t.Helper()
	pod := getMap(d, "spec", "template", "spec")
	podLabels := getMap(d, "spec", "template", "metadata", "labels")
	for k, v := range getMap(d, "spec", "selector", "matchLabels") {
		if podLabels[k] != v {
			t.Errorf("selector %s=%v does not match the pod labels %v", k, v, podLabels)
		}
	}
	if get(pod, "securityContext", "runAsNonRoot") != true {
		t.Error("pod securityContext.runAsNonRoot is not true")
	}
	if uid, ok := get(pod, "securityContext", "runAsUser").(int); !ok || uid <= 0 {
		t.Errorf("pod securityContext.runAsUser = %v, want a non-root uid", get(pod, "securityContext", "runAsUser"))
	}
	if s := getString(pod, "securityContext", "seccompProfile", "type"); s != "RuntimeDefault" {
		t.Errorf("seccompProfile %q, want RuntimeDefault", s)
	}
	if get(pod, "automountServiceAccountToken") != false {
		t.Error("automountServiceAccountToken is not false; the exporter does not talk to the API server")
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

	// Port 10092, probes on /-/healthy and /-/ready.
	ports := getList(c, "ports")
	if len(ports) != 1 || get(ports[0], "containerPort") != 10092 || getString(ports[0], "name") == "" {
		t.Fatalf("ports %v, want one named containerPort 10092", ports)
	}
	portName := getString(ports[0], "name")
	for probe, path := range map[string]string{"livenessProbe": "/-/healthy", "readinessProbe": "/-/ready"} {
		if got := getString(c, probe, "httpGet", "path"); got != path {
			t.Errorf("%s path %q, want %s", probe, got, path)
		}
		if p := get(c, probe, "httpGet", "port"); p != portName && p != 10092 {
			t.Errorf("%s port %v, want %s or 10092", probe, p, portName)
		}
	}
	return c
}

// mountedConfig follows --config.file through the container's volumeMounts
// to the ConfigMap key it names and returns that key's text and the path.
func mountedConfig(t *testing.T, ms []manifest, pod, c any, args []string) (string, string) {
	t.Helper()
	_, path := replaceConfigFile(t, args, "")
	return mountedFile(t, ms, pod, c, path), path
}

// mountedFile follows path through the container's volumeMounts to the
// ConfigMap key it names and returns that key's text.
func mountedFile(t *testing.T, ms []manifest, pod, c any, path string) string {
	t.Helper()
	for _, vm := range getList(c, "volumeMounts") {
		mp := getString(vm, "mountPath")
		rel, ok := strings.CutPrefix(path, mp+"/")
		if !ok {
			continue
		}
		for _, v := range getList(pod, "volumes") {
			if getString(v, "name") != getString(vm, "name") {
				continue
			}
			cmName := getString(v, "configMap", "name")
			if cmName == "" {
				t.Fatalf("%s is mounted from volume %s, which is not a ConfigMap", path, getString(v, "name"))
			}
			cm := one(t, ms, "ConfigMap", cmName)
			text, ok := getMap(cm.doc, "data")[rel].(string)
			if !ok {
				t.Fatalf("ConfigMap %s has no key %s (for %s)", cmName, rel, path)
			}
			return text
		}
		t.Fatalf("volumeMount %s names no volume", getString(vm, "name"))
	}
	t.Fatalf("%s is not below any volumeMount", path)
	return ""
}

// commentedYAML matches the commented-out configuration lines of the
// ConfigMap (the TLS/SASL example): "# tls:", "# sasl:" and deeper lines.
var commentedYAML = regexp.MustCompile(`(?m)^(\s*)# ((?:tls|sasl):.*|  .*)$`)

// checkSecretReference: an optional Secret is mounted, the configuration's
// TLS/SASL example points into it, and, uncommented, it is a valid
// configuration.
func checkSecretReference(t *testing.T, pod, c any, cfgText string) {
	t.Helper()
	var secretVol, mountPath string
	for _, v := range getList(pod, "volumes") {
		if getString(v, "secret", "secretName") != "" {
			secretVol = getString(v, "name")
			if get(v, "secret", "optional") != true {
				t.Errorf("Secret volume %s is not optional: the pod would not start against an unsecured cluster", secretVol)
			}
		}
	}
	for _, vm := range getList(c, "volumeMounts") {
		if getString(vm, "name") == secretVol {
			mountPath = getString(vm, "mountPath")
		}
	}
	if secretVol == "" || mountPath == "" {
		t.Fatal("no Secret volume mounted for the TLS/SASL credentials")
	}
	secured := commentedYAML.ReplaceAllString(cfgText, "$1$2")
	for _, key := range []string{"tls:", "sasl:", "password_file: " + mountPath + "/", "ca_file: " + mountPath + "/"} {
		if !strings.Contains(secured, key) {
			t.Errorf("the configuration's TLS/SASL example lacks %q", key)
		}
	}
	if _, ok := reflect.TypeFor[config.Kafka]().FieldByName("TLS"); !ok {
		t.Log("package config has no kafka.tls yet; the uncommented TLS/SASL example is not validated")
		return
	}
	dir := t.TempDir()
	secured = strings.ReplaceAll(secured, mountPath+"/", dir+"/")
	files := map[string][]byte{"ca.crt": selfSignedPEM(t), "sasl-password": []byte("s3cret\n")}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, m := range regexp.MustCompile(regexp.QuoteMeta(dir)+`/([\w.-]+)`).FindAllStringSubmatch(secured, -1) {
		if files[m[1]] == nil {
			t.Errorf("the TLS/SASL example reads Secret key %s, which the Deployment comment does not create", m[1])
		}
	}
	f := filepath.Join(dir, "config.yml")
	if err := os.WriteFile(f, []byte(secured), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := config.LoadFile(f); err != nil {
		t.Errorf("the ConfigMap's TLS/SASL example, uncommented, is invalid: %v\n%s", err, secured)
	}
}

func selfSignedPEM(t *testing.T) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "deploy-test-ca"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

func TestServiceAndServiceMonitor(t *testing.T) {
	ms := manifests(t)
	d := one(t, ms, "Deployment", AppName).doc
	svc := one(t, ms, "Service", AppName).doc
	sm := one(t, ms, "ServiceMonitor", AppName).doc

	podLabels := getMap(d, "spec", "template", "metadata", "labels")
	sel := getMap(svc, "spec", "selector")
	if len(sel) == 0 {
		t.Fatal("Service has no selector")
	}
	for k, v := range sel {
		if podLabels[k] != v {
			t.Errorf("Service selector %s=%v does not match the pod labels %v", k, v, podLabels)
		}
	}
	if get(svc, "spec", "publishNotReadyAddresses") != true {
		t.Error("Service does not publish not-ready addresses: a probe that cannot reach Kafka would also stop being scraped")
	}
	ports := getList(svc, "spec", "ports")
	if len(ports) != 1 || get(ports[0], "port") != 10092 {
		t.Fatalf("Service ports %v, want one port 10092", ports)
	}
	cport := getList(d, "spec", "template", "spec", "containers", 0, "ports")[0]
	if tp := get(ports[0], "targetPort"); tp != getString(cport, "name") && tp != 10092 {
		t.Errorf("Service targetPort %v is not the container port %v", tp, cport)
	}

	for k, v := range getMap(sm, "spec", "selector", "matchLabels") {
		if getMap(svc, "metadata", "labels")[k] != v {
			t.Errorf("ServiceMonitor selector %s=%v does not match the Service labels", k, v)
		}
	}
	eps := getList(sm, "spec", "endpoints")
	if len(eps) != 1 {
		t.Fatalf("ServiceMonitor endpoints %v, want one", eps)
	}
	if p := getString(eps[0], "port"); p == "" || p != getString(ports[0], "name") {
		t.Errorf("ServiceMonitor port %q is not the Service's port name %q", p, getString(ports[0], "name"))
	}
	if p := getString(eps[0], "path"); p != "/metrics" {
		t.Errorf("ServiceMonitor path %q, want /metrics", p)
	}
	// The Operator names the job after the Service; the exporter-down alert
	// must match it.
	jobRE := exporterDownJobRegex(t)
	if !jobRE.MatchString(getString(svc, "metadata", "name")) {
		t.Errorf("job %q (the Service name) does not match KafkaBenchExporterDown's job=~%q", getString(svc, "metadata", "name"), jobRE)
	}
}

// exporterDownJobRegex is the job matcher of KafkaBenchExporterDown, anchored
// as PromQL anchors it.
func exporterDownJobRegex(t *testing.T) *regexp.Regexp {
	t.Helper()
	rules, err := alerts.Rules()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rules {
		if r.Alert != "KafkaBenchExporterDown" {
			continue
		}
		m := regexp.MustCompile(`job=~"([^"]+)"`).FindStringSubmatch(r.Expr)
		if m == nil {
			t.Fatalf("KafkaBenchExporterDown has no job=~ matcher: %s", r.Expr)
		}
		return regexp.MustCompile("^(?:" + m[1] + ")$")
	}
	t.Fatal("no KafkaBenchExporterDown alert")
	return nil
}

func TestPrometheusRule(t *testing.T) {
	ms := manifests(t)
	pr := one(t, ms, "PrometheusRule", AppName).doc
	if getString(pr, "apiVersion") != "monitoring.coreos.com/v1" {
		t.Errorf("apiVersion %q", getString(pr, "apiVersion"))
	}
	groups := getList(pr, "spec", "groups")

	// Exactly the groups of the rule files, unchanged.
	if !reflect.DeepEqual(groups, alertGroups(t)) {
		t.Error("spec.groups differ from the groups of alerts/*.yml")
	}
	seen := map[string]bool{}
	for _, g := range groups {
		n := getString(g, "name")
		if seen[n] {
			t.Errorf("group %s twice; Prometheus rejects that", n)
		}
		seen[n] = true
	}

	// Prometheus accepts spec as a rule file.
	promtool := testenv.Tool(t, "promtool")
	b, err := yaml.Marshal(getMap(pr, "spec"))
	if err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(t.TempDir(), "prometheusrule-spec.yml")
	if err := os.WriteFile(f, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(promtool, "check", "rules", f).CombinedOutput(); err != nil {
		t.Errorf("promtool check rules on the PrometheusRule's spec: %v\n%s", err, out)
	}
}

// alertGroups are the groups of every alerts/*.yml, in file-name order.
func alertGroups(t *testing.T) []any {
	t.Helper()
	names, err := alerts.FileNames()
	if err != nil {
		t.Fatal(err)
	}
	var groups []any
	for _, n := range names {
		groups = append(groups, getList(yamlDocs(t, repoPath(t, "alerts/"+n))[0], "groups")...)
	}
	return groups
}

func TestDashboardConfigMaps(t *testing.T) {
	ms := manifests(t)
	names, err := dashboards.FileNames()
	if err != nil {
		t.Fatal(err)
	}
	if len(names) == 0 {
		t.Fatal("no dashboards")
	}
	for _, n := range names {
		cm := one(t, ms, "ConfigMap", DashboardConfigMapName(n)).doc
		if v := getString(cm, "metadata", "labels", DashboardLabel); v != "1" {
			t.Errorf("ConfigMap for %s: label %s = %q, want \"1\"", n, DashboardLabel, v)
		}
		want, err := dashboards.Files.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		data := getMap(cm, "data")
		if len(data) != 1 || data[n] != string(want) {
			t.Errorf("ConfigMap %s: data is not exactly {%s: dashboards/%s}", DashboardConfigMapName(n), n, n)
		}
	}
}

// kustomize builds the whole directory into valid objects.
func TestKustomizeBuild(t *testing.T) { checkKustomizeBuild(t, k8sDir, len(manifests(t))) }

// checkKustomizeBuild builds the kustomization in dir and wants n objects,
// valid ones.
func checkKustomizeBuild(t *testing.T, dir string, n int) {
	t.Helper()
	out, docs := kustomizeBuild(t, dir)
	if len(docs) != n {
		t.Errorf("kustomize build %s produced %d objects, want %d", dir, len(docs), n)
	}
	validateManifests(t, "kustomize build "+dir, out)
}

var kustomizeBinary madeOnce

// kustomizeBuild is `kustomize build dir` (scripts/kustomize.sh, the
// kustomize of `kubectl kustomize`): its output and its documents.
func kustomizeBuild(t *testing.T, dir string) ([]byte, []map[string]any) {
	t.Helper()
	cmd := exec.Command(scriptTool(t, &kustomizeBinary, "scripts/kustomize.sh"), "build", dir)
	cmd.Dir = root(t)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("kustomize build %s: %v\n%s", dir, err, stderr.String())
	}
	return out, parseYAMLDocs(t, "kustomize build "+dir, out)
}
