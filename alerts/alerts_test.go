package alerts

import (
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

	"github.com/kafka-bench/kafka_bench_exporter/internal/promtest"
)

// promtoolPath returns Prometheus 3's promtool (scripts/prometheus.sh),
// which reads native histograms in test series. Without it the test is
// skipped, unless CI=true or KAFKA_BENCH_INTEGRATION=1, where it fails.
func promtoolPath(t *testing.T) string {
	t.Helper()
	return promtest.Required(t).Promtool
}

func runPromtool(t *testing.T, dir string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(promtoolPath(t), args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func testFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("tests", "*.yml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no promtool unit tests in tests/*.yml")
	}
	return files
}

func TestEmbeddedFiles(t *testing.T) {
	names, err := FileNames()
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{AlertsFile, RecordingRulesFile}; !reflect.DeepEqual(names, want) {
		t.Fatalf("embedded rule files = %v, want %v", names, want)
	}
	files, err := RuleFiles()
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range files {
		onDisk, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if string(onDisk) != string(b) {
			t.Errorf("%s: embedded content differs from the file on disk", name)
		}
	}
}

func TestPromtoolCheckRules(t *testing.T) {
	names, err := FileNames()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			out, err := runPromtool(t, ".", "check", "rules", name)
			if err != nil || !strings.Contains(out, "SUCCESS") {
				t.Fatalf("promtool check rules %s: %v\n%s", name, err, out)
			}
		})
	}
}

func TestPromtoolTestRules(t *testing.T) {
	for _, f := range testFiles(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			t.Parallel()
			out, err := runPromtool(t, ".", "test", "rules", f)
			if err != nil || !strings.Contains(out, "SUCCESS") {
				t.Fatalf("promtool test rules %s: %v\n%s", f, err, out)
			}
		})
	}
}

// TestPromtoolHarnessFails makes sure the two promtool tests above can fail:
// a broken rule file and a wrong expectation must both be reported.
func TestPromtoolHarnessFails(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("broken.yml", "groups:\n  - name: broken\n    rules:\n      - alert: Broken\n        expr: sum(up\n")
	if out, err := runPromtool(t, dir, "check", "rules", "broken.yml"); err == nil {
		t.Errorf("promtool check rules accepted a broken rule file:\n%s", out)
	}

	alerts, err := Files.ReadFile(AlertsFile)
	if err != nil {
		t.Fatal(err)
	}
	recording, err := Files.ReadFile(RecordingRulesFile)
	if err != nil {
		t.Fatal(err)
	}
	write(AlertsFile, string(alerts))
	write(RecordingRulesFile, string(recording))
	write("wrong_test.yml", `rule_files: [alerts.yml, recording_rules.yml]
tests:
  - interval: 1m
    input_series:
      - series: 'kafka_bench_probe_up{job="kafka_bench",instance="i",probe="p"}'
        values: '1x20'
    alert_rule_test:
      - eval_time: 10m
        alertname: KafkaBenchProbeDown
        exp_alerts:
          - exp_labels: {severity: critical, job: kafka_bench, instance: i, probe: p}
`)
	if out, err := runPromtool(t, dir, "test", "rules", "wrong_test.yml"); err == nil {
		t.Errorf("promtool test rules passed a wrong expectation:\n%s", out)
	}
}

var (
	alertNameRE  = regexp.MustCompile(`^KafkaBench[A-Z][A-Za-z0-9]*$`)
	recordNameRE = regexp.MustCompile(`^[a-z_]+:[a-z0-9_]+:[a-z0-9_]+$`)
)

func TestRuleConventions(t *testing.T) {
	rules, err := Rules()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rules {
		if r.Expr == "" {
			t.Errorf("%s: rule %s%s has no expr", r.File, r.Alert, r.Record)
		}
		if r.Record != "" {
			if r.File != RecordingRulesFile {
				t.Errorf("recording rule %s is in %s, want %s", r.Record, r.File, RecordingRulesFile)
			}
			if !recordNameRE.MatchString(r.Record) {
				t.Errorf("recording rule %s is not named level:metric:operations", r.Record)
			}
			if r.For != "" || len(r.Annotations) > 0 {
				t.Errorf("recording rule %s has for/annotations", r.Record)
			}
			continue
		}
		if r.File != AlertsFile {
			t.Errorf("alert %s is in %s, want %s", r.Alert, r.File, AlertsFile)
		}
		if !alertNameRE.MatchString(r.Alert) {
			t.Errorf("alert %s is not CamelCase with prefix KafkaBench", r.Alert)
		}
		switch r.Labels["severity"] {
		case "critical", "warning", "info":
		default:
			t.Errorf("alert %s: severity %q, want critical, warning or info", r.Alert, r.Labels["severity"])
		}
		for _, a := range []string{"summary", "description", "runbook_url"} {
			if strings.TrimSpace(r.Annotations[a]) == "" {
				t.Errorf("alert %s: missing annotation %s", r.Alert, a)
			}
		}
		if want := RunbookBaseURL + strings.ToLower(r.Alert); r.Annotations["runbook_url"] != want {
			t.Errorf("alert %s: runbook_url %q, want %q", r.Alert, r.Annotations["runbook_url"], want)
		}
	}
}

func TestAlertNames(t *testing.T) {
	got, err := AlertNames()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"KafkaBenchAbortedRecordsRead",
		"KafkaBenchCapacityRegression",
		"KafkaBenchCapacityRunFailing",
		"KafkaBenchCatchUpRecordsMissing",
		"KafkaBenchCatchUpRegression",
		"KafkaBenchCollectorFailing",
		"KafkaBenchConfigPollFailing",
		"KafkaBenchConfigReloadFailing",
		"KafkaBenchConsumerLagGrowing",
		"KafkaBenchDeliverySLOBurn",
		"KafkaBenchEndToEndLatencySLOBurn",
		"KafkaBenchExporterAbsent",
		"KafkaBenchExporterDown",
		"KafkaBenchGroupLagHigh",
		"KafkaBenchGroupProtocolFallback",
		"KafkaBenchGroupStalled",
		"KafkaBenchGroupStopped",
		"KafkaBenchLoadGeneratorSaturated",
		"KafkaBenchLossSLOBurn",
		"KafkaBenchProbeClientFailing",
		"KafkaBenchProbeDown",
		"KafkaBenchProduceErrors",
		"KafkaBenchProduceLatencySLOBurn",
		"KafkaBenchProduceSuccessSLOBurn",
		"KafkaBenchRebalanceSlow",
		"KafkaBenchRecordsDuplicated",
		"KafkaBenchRecordsLost",
		"KafkaBenchReplicationLatencyHigh",
		"KafkaBenchReplicationLost",
		"KafkaBenchShareRecordsArchived",
		"KafkaBenchShareRedeliveryHigh",
		"KafkaBenchThroughputBelowTarget",
		"KafkaBenchThroughputRegression",
		"KafkaBenchTransactionsFailing",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("AlertNames() = %v\nwant %v", got, want)
	}
}

// unitTestFile is the part of a promtool unit test file this test reads.
type unitTestFile struct {
	RuleFiles []string `yaml:"rule_files"`
	Tests     []struct {
		AlertRuleTest []struct {
			Alertname string `yaml:"alertname"`
			ExpAlerts []any  `yaml:"exp_alerts"`
		} `yaml:"alert_rule_test"`
		PromqlExprTest []struct {
			Expr string `yaml:"expr"`
		} `yaml:"promql_expr_test"`
	} `yaml:"tests"`
}

// TestEveryRuleIsUnitTested requires, across tests/*.yml, a firing and a
// silent case for every alert and a promql_expr_test of every recording rule.
func TestEveryRuleIsUnitTested(t *testing.T) {
	firing, silent, tested := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, f := range testFiles(t) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var u unitTestFile
		if err := yaml.Unmarshal(b, &u); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, rf := range u.RuleFiles {
			if _, err := os.Stat(filepath.Join(filepath.Dir(f), rf)); err != nil {
				t.Errorf("%s: rule file %s: %v", f, rf, err)
			}
		}
		for _, tc := range u.Tests {
			for _, a := range tc.AlertRuleTest {
				if len(a.ExpAlerts) > 0 {
					firing[a.Alertname] = true
				} else {
					silent[a.Alertname] = true
				}
			}
			for _, e := range tc.PromqlExprTest {
				tested[strings.TrimSpace(e.Expr)] = true
			}
		}
	}
	alerts, err := AlertNames()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range alerts {
		if !firing[a] {
			t.Errorf("alert %s has no firing case in tests/*.yml", a)
		}
		if !silent[a] {
			t.Errorf("alert %s has no silent case (exp_alerts: []) in tests/*.yml", a)
		}
	}
	records, err := RecordingRuleNames()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range records {
		if !tested[r] {
			t.Errorf("recording rule %s has no promql_expr_test with expr: %s in tests/*.yml", r, r)
		}
	}
	var unknown []string
	for a := range firing {
		if !contains(alerts, a) {
			unknown = append(unknown, a)
		}
	}
	sort.Strings(unknown)
	if len(unknown) > 0 {
		t.Errorf("tests/*.yml expect alerts that do not exist: %v", unknown)
	}
}

func contains(list []string, s string) bool {
	return slices.Contains(list, s)
}

func TestAlertRuleFile(t *testing.T) {
	b, err := AlertRuleFile("KafkaBenchProbeDown", "5s")
	if err != nil {
		t.Fatal(err)
	}
	var f ruleFileYAML
	if err := yaml.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Groups) != 1 || len(f.Groups[0].Rules) != 1 {
		t.Fatalf("derived file has %d groups, want 1 group with 1 rule:\n%s", len(f.Groups), b)
	}
	r := f.Groups[0].Rules[0]
	if r.Alert != "KafkaBenchProbeDown" || r.For != "5s" || r.Expr != "kafka_bench_probe_up == 0" || r.Labels["severity"] != "critical" {
		t.Errorf("derived rule = %+v", r)
	}
	if _, err := AlertRuleFile("NoSuchAlert", "5s"); err == nil {
		t.Error("AlertRuleFile(NoSuchAlert) returned no error")
	}
	t.Run("promtool", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "derived.yml"), b, 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := runPromtool(t, dir, "check", "rules", "derived.yml"); err != nil {
			t.Fatalf("promtool check rules on the derived file: %v\n%s", err, out)
		}
	})
}
