package deploy

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// checkFleetValues: what ci/all-on-values.yaml sets for a fleet reaches the
// objects — cluster label, metricRelabelings, namespaces of the monitor and
// the rules, ServiceAccount, extra volumes and env, the probe override and
// GOMEMLIMIT at 90 % of the memory limit.
func checkFleetValues(t *testing.T, ms []manifest, d exporterPod, fullname string) {
	t.Helper()
	sm := one(t, ms, "ServiceMonitor", fullname).doc
	ep := getMap(sm, "spec", "endpoints", 0)
	relabel := getList(ep, "relabelings")
	if len(relabel) < 2 || getString(relabel[1], "targetLabel") != "cluster" || getString(relabel[1], "replacement") != "prod" {
		t.Errorf("ServiceMonitor relabelings %v: want cluster=prod second", relabel)
	}
	if m := getList(ep, "metricRelabelings"); len(m) != 1 || getString(m[0], "action") != "drop" {
		t.Errorf("ServiceMonitor metricRelabelings %v, want the values' drop rule", m)
	}
	if ns := getString(sm, "metadata", "namespace"); ns != "monitoring-ops" {
		t.Errorf("ServiceMonitor namespace %q, want monitoring-ops", ns)
	}
	if got := getList(sm, "spec", "namespaceSelector", "matchNames"); !reflect.DeepEqual(got, []any{namespace}) {
		t.Errorf("ServiceMonitor namespaceSelector %v, want the release's namespace %s", got, namespace)
	}
	if ns := getString(one(t, ms, "PrometheusRule", fullname).doc, "metadata", "namespace"); ns != "monitoring-ops" {
		t.Errorf("PrometheusRule namespace %q, want monitoring-ops", ns)
	}

	sa := one(t, ms, "ServiceAccount", fullname).doc
	if get(sa, "automountServiceAccountToken") != false {
		t.Error("ServiceAccount mounts a token; the exporter never calls the API server")
	}
	if got := getString(d.pod, "serviceAccountName"); got != fullname {
		t.Errorf("serviceAccountName %q, want %s", got, fullname)
	}
	mounted := false
	for _, vm := range getList(d.container, "volumeMounts") {
		mounted = mounted || getString(vm, "name") == "payload"
	}
	vol := false
	for _, v := range getList(d.pod, "volumes") {
		vol = vol || (getString(v, "name") == "payload" && get(v, "emptyDir") != nil)
	}
	if !mounted || !vol {
		t.Errorf("extraVolumes / extraVolumeMounts missing: volumes %v, mounts %v", getList(d.pod, "volumes"), getList(d.container, "volumeMounts"))
	}
	env := map[string]string{}
	for _, e := range getList(d.container, "env") {
		env[getString(e, "name")] = getString(e, "value")
	}
	// 90 % of the values' 256Mi.
	if env["GOMEMLIMIT"] != "241591910" || env["TZ"] != "UTC" {
		t.Errorf("env %v, want GOMEMLIMIT 241591910 (90 %% of 256Mi) and the values' TZ", env)
	}
	if get(d.container, "livenessProbe", "periodSeconds") != 20 {
		t.Errorf("livenessProbe %v, want the values' override", get(d.container, "livenessProbe"))
	}
}

// GOMEMLIMIT follows the memory limit, and is not set without one.
func TestHelmGoMemLimit(t *testing.T) {
	for _, c := range []struct{ limit, want string }{{"1Gi", "966367641"}, {"500M", "450000000"}, {"", ""}} {
		flags := []string{"--set", "resources.limits.memory=" + c.limit}
		if c.limit == "" {
			flags = []string{"--set", "resources.limits=null"}
		}
		d := one(t, helmTemplate(t, "limit "+c.limit, flags...), "Deployment", "").doc
		got := ""
		for _, e := range getList(d, "spec", "template", "spec", "containers", 0, "env") {
			if getString(e, "name") == "GOMEMLIMIT" {
				got = getString(e, "value")
			}
		}
		if got != c.want {
			t.Errorf("limit %q: GOMEMLIMIT %q, want %q", c.limit, got, c.want)
		}
	}
}

// The minimal values: the exporter and its Service only.
func TestHelmMinimal(t *testing.T) {
	ms := helmTemplate(t, "minimal", "--values", minimalValues)
	if got, want := kinds(ms), []string{"Deployment", "Service"}; !slices.Equal(got, want) {
		t.Errorf("kinds %v, want %v", got, want)
	}
}

// The PodMonitor's job (<namespace>/<name>) reaches the exporter-health
// alerts; prometheusRule.jobSelector overrides it.
func TestHelmJobSelector(t *testing.T) {
	for _, c := range []struct {
		flags []string
		want  string
	}{
		{[]string{"--set", "podMonitor.enabled=true"}, `up{job="monitoring/kafka-bench-exporter"} == 0`},
		{[]string{"--set", "serviceMonitor.enabled=true", "--set", "fullnameOverride=kb-east"}, `up{job="kb-east"} == 0`},
		{[]string{"--set", `prometheusRule.jobSelector=job="kafka"`}, `up{job="kafka"} == 0`},
	} {
		ms := helmTemplate(t, strings.Join(c.flags, " "), append(c.flags, "--set", "prometheusRule.enabled=true")...)
		pr := one(t, ms, "PrometheusRule", "").doc
		b, err := yaml.Marshal(getList(pr, "spec", "groups"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), c.want) || strings.Contains(string(b), ChartJobSelector) {
			t.Errorf("%v: PrometheusRule lacks %s:\n%.600s", c.flags, c.want, b)
		}
	}
}

// Values the chart refuses while rendering, with a message naming the keys
// (values.schema.json cannot say why): each testdata file holds its message.
func TestHelmRefusals(t *testing.T) {
	files, err := filepath.Glob(repoPath(t, helmTestdata+"/refused-*-values.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no %s/refused-*-values.yaml (%v)", helmTestdata, err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			first, _, _ := strings.Cut(string(b), "\n")
			want, ok := strings.CutPrefix(first, "# want: ")
			if !ok {
				t.Fatalf("first line %q is not # want: <the message>", first)
			}
			_, stderr, err := helm(t, "template", release, ChartDir, "--values", f)
			if err == nil {
				t.Fatal("helm template accepted the values")
			}
			if !strings.Contains(stderr, want) {
				t.Errorf("helm template: %v\n%s\nwant %q", err, stderr, want)
			}
		})
	}
}

// The chart's README names every value of values.yaml (free-form maps as a
// whole), so neither gains a value the other lacks.
func TestChartReadmeListsEveryValue(t *testing.T) {
	var values map[string]any
	if err := yaml.Unmarshal(readFile(t, repoPath(t, ChartDir+"/values.yaml")), &values); err != nil {
		t.Fatal(err)
	}
	readme := string(readFile(t, repoPath(t, ChartDir+"/README.md")))
	freeForm := map[string]bool{"config": true, "resources": true, "podSecurityContext": true, "securityContext": true, "labels": true}
	var walk func(prefix string, m map[string]any)
	walk = func(prefix string, m map[string]any) {
		for k, v := range m {
			path := prefix + k
			if sub, ok := v.(map[string]any); ok && len(sub) > 0 && !freeForm[k] {
				walk(path+".", sub)
				continue
			}
			if !strings.Contains(readme, "`"+path+"`") {
				t.Errorf("%s/README.md does not name the value %s", ChartDir, path)
			}
		}
	}
	walk("", values)
	// And every value the table's first column names is one of values.yaml.
	for line := range strings.SplitSeq(readme, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 3 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`") {
			continue
		}
		for _, m := range regexp.MustCompile("`([a-zA-Z.]+)`").FindAllStringSubmatch(cells[1], -1) {
			var v any = values
			for k := range strings.SplitSeq(m[1], ".") {
				mv, _ := v.(map[string]any)
				var ok bool
				if v, ok = mv[k]; !ok {
					t.Errorf("%s/README.md names %s, which values.yaml lacks", ChartDir, m[1])
					break
				}
			}
		}
	}
}
