package deploy

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const (
	unitFile         = "deploy/systemd/kafka_bench_exporter.service"
	envFileTmpl      = "deploy/systemd/kafka_bench_exporter.default"
	agentUnitFile    = "deploy/systemd/kafka_bench_exporter-host-agent.service"
	agentEnvFileTmpl = "deploy/systemd/kafka_bench_exporter-host-agent.default"
)

// unit is a parsed systemd unit: section → key → values in order.
type unit map[string]map[string][]string

func (u unit) last(section, key string) string {
	v := u[section][key]
	if len(v) == 0 {
		return ""
	}
	return v[len(v)-1]
}

// parseUnit reads systemd's INI-like format: [Section] headers, Key=Value
// lines, # and ; comments, backslash continuations; a key may repeat.
func parseUnit(t *testing.T, text string) unit {
	t.Helper()
	u := unit{}
	section := ""
	var pending string
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if pending == "" && (line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, ";")) {
			continue
		}
		if body, ok := strings.CutSuffix(line, `\`); ok {
			pending += body + " "
			continue
		}
		line, pending = pending+line, ""
		if strings.HasPrefix(line, "[") {
			if !strings.HasSuffix(line, "]") {
				t.Fatalf("line %d: bad section header %q", i+1, line)
			}
			section = line[1 : len(line)-1]
			if u[section] == nil {
				u[section] = map[string][]string{}
			}
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || section == "" || strings.TrimSpace(k) == "" {
			t.Fatalf("line %d: %q is not Key=Value inside a section", i+1, line)
		}
		k = strings.TrimSpace(k)
		u[section][k] = append(u[section][k], strings.TrimSpace(v))
	}
	return u
}

// parseEnvFile reads KEY=value lines (value optionally double-quoted), as
// systemd's EnvironmentFile= does for the simple cases the example uses.
func parseEnvFile(t *testing.T, path string) map[string]string {
	t.Helper()
	env := map[string]string{}
	s := bufio.NewScanner(strings.NewReader(string(readFile(t, path))))
	for s.Scan() {
		line := strings.TrimSpace(s.Text())
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, ";") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || !regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`).MatchString(k) {
			t.Fatalf("%s: %q is not KEY=value", path, line)
		}
		if uq, err := strconv.Unquote(v); err == nil {
			v = uq
		}
		env[k] = v
	}
	return env
}

// expandExec splits an Exec line into argv as systemd does for the forms
// used here: words separated by blanks, and an unquoted $VAR (a whole word)
// replaced by its value split at blanks.
func expandExec(line string, env map[string]string) []string {
	var argv []string
	for w := range strings.FieldsSeq(line) {
		if name, ok := strings.CutPrefix(w, "$"); ok && !strings.HasPrefix(name, "{") {
			argv = append(argv, strings.Fields(env[name])...)
			continue
		}
		argv = append(argv, w)
	}
	return argv
}

func TestSystemdUnit(t *testing.T) {
	checkUnit(t, unitFile, envFileTmpl, func(argv []string) {
		// Reload = SIGHUP to the main process, which re-reads the config file.
		u := parseUnit(t, string(readFile(t, repoPath(t, unitFile))))
		if r := u.last("Service", "ExecReload"); !strings.Contains(r, "kill") || !strings.Contains(r, "-HUP") || !strings.Contains(r, "$MAINPID") {
			t.Errorf("ExecReload=%q, want kill -HUP $MAINPID", r)
		}
		// Started after the clock is synchronised: the wall time read at
		// start is the base of every header time stamp.
		var after []string
		for _, a := range u["Unit"]["After"] {
			after = append(after, strings.Fields(a)...)
		}
		if !slices.Contains(after, "time-sync.target") {
			t.Errorf("After=%q lacks time-sync.target", u["Unit"]["After"])
		}
		cfg := filepath.Join(t.TempDir(), "config.yml")
		if err := os.WriteFile(cfg, []byte("kafka:\n  brokers: [127.0.0.1:9092]\nprobes:\n  - name: p1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		args, _ := replaceConfigFile(t, argv[1:], cfg)
		configCheck(t, "ExecStart with "+envFileTmpl, args)
	})
}

// TestSystemdHostAgentUnit: the host-agent variant runs no probe and needs
// no configuration file.
func TestSystemdHostAgentUnit(t *testing.T) {
	checkUnit(t, agentUnitFile, agentEnvFileTmpl, func(argv []string) {
		if !slices.Contains(argv, "--no-probes") {
			t.Errorf("ExecStart %q lacks --no-probes", argv)
		}
		out, err := exec.Command(exporterBinary(t), append(argv[1:], "--config.check")...).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "probes: []") {
			t.Errorf("ExecStart with %s --config.check: %v, want probes: []\n%s", agentEnvFileTmpl, err, out)
		}
	})
}

// checkUnit checks what every unit of deploy/systemd needs (sections,
// non-root, hardening that leaves the host collector its view, systemd's
// own verify); checkExec checks ExecStart expanded with the example
// environment file.
func checkUnit(t *testing.T, unitFile, envFileTmpl string, checkExec func(argv []string)) {
	t.Helper()
	u := parseUnit(t, string(readFile(t, repoPath(t, unitFile))))
	for _, s := range []string{"Unit", "Service", "Install"} {
		if u[s] == nil {
			t.Fatalf("no [%s] section", s)
		}
	}
	if u.last("Unit", "Description") == "" {
		t.Error("no Description=")
	}
	if u.last("Install", "WantedBy") != "multi-user.target" {
		t.Errorf("WantedBy=%q, want multi-user.target", u.last("Install", "WantedBy"))
	}
	svc := func(k string) string { return u.last("Service", k) }

	// Non-root.
	if svc("DynamicUser") != "yes" && (svc("User") == "" || svc("User") == "root" || svc("User") == "0") {
		t.Error("neither DynamicUser=yes nor a non-root User=")
	}
	// Hardening.
	for k, want := range map[string]string{
		"NoNewPrivileges":       "yes",
		"ProtectSystem":         "strict",
		"ProtectHome":           "yes",
		"PrivateTmp":            "yes",
		"PrivateDevices":        "yes",
		"ProtectKernelTunables": "yes",
		"ProtectKernelModules":  "yes",
		"ProtectControlGroups":  "yes",
		"RestrictSUIDSGID":      "yes",
		"CapabilityBoundingSet": "",
		"LockPersonality":       "yes",
	} {
		if _, set := u["Service"][k]; !set || svc(k) != want {
			t.Errorf("%s=%q, want %q", k, svc(k), want)
		}
	}
	// ... but not so much that the host collector goes blind.
	if svc("ProcSubset") == "pid" || svc("PrivateNetwork") == "yes" {
		t.Error("ProcSubset=pid or PrivateNetwork=yes hide /proc/stat or the host's interfaces from the host collector")
	}

	// ExecStart with the example environment file runs: every flag exists.
	envFile := strings.TrimPrefix(svc("EnvironmentFile"), "-")
	if filepath.Base(envFile) != strings.TrimSuffix(filepath.Base(envFileTmpl), ".default") {
		t.Errorf("EnvironmentFile=%s is not where the example %s installs", envFile, envFileTmpl)
	}
	argv := expandExec(svc("ExecStart"), parseEnvFile(t, repoPath(t, envFileTmpl)))
	if len(argv) < 2 || filepath.Base(argv[0]) != "kafka_bench_exporter" || !filepath.IsAbs(argv[0]) {
		t.Fatalf("ExecStart=%q, want the absolute path of kafka_bench_exporter with flags", svc("ExecStart"))
	}
	checkExec(argv)

	// systemd's own parser, where it is installed: it must print nothing
	// (unknown keys and bad values are only warnings, exit code 0).
	sa, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Log("systemd-analyze is not on PATH: `systemd-analyze verify` not run")
		return
	}
	dir := t.TempDir()
	text := string(readFile(t, repoPath(t, unitFile)))
	// verify checks that the binaries exist: point it at the one built here.
	text = strings.ReplaceAll(text, argv[0], exporterBinary(t))
	text = strings.ReplaceAll(text, "EnvironmentFile=-"+envFile, "EnvironmentFile="+repoPath(t, envFileTmpl))
	f := filepath.Join(dir, filepath.Base(unitFile))
	if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(sa, "verify", f).CombinedOutput()
	if err != nil || len(strings.TrimSpace(string(out))) > 0 {
		t.Errorf("systemd-analyze verify: %v\n%s", err, out)
	}
}
