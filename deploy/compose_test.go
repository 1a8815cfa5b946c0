package deploy

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/kafka-bench/kafka_bench_exporter/alerts"
	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/dashboards"
	"github.com/kafka-bench/kafka_bench_exporter/internal/testenv"
)

// There is no Docker engine here: the compose file is checked as data, and
// every file it hands to a container is followed through its bind mounts to
// the repository and checked with the tool that would read it.

const composeDir = "deploy/compose"

type compose struct {
	t        *testing.T
	dir      string // absolute deploy/compose
	services map[string]map[string]any
	volumes  map[string]any
}

func loadCompose(t *testing.T) *compose {
	t.Helper()
	docs := yamlDocs(t, repoPath(t, composeDir+"/docker-compose.yml"))
	if len(docs) != 1 {
		t.Fatalf("docker-compose.yml: want one document, got %d", len(docs))
	}
	c := &compose{t: t, dir: repoPath(t, composeDir), services: map[string]map[string]any{}, volumes: getMap(docs[0], "volumes")}
	for name, s := range getMap(docs[0], "services") {
		m, ok := s.(map[string]any)
		if !ok {
			t.Fatalf("service %s is not a mapping", name)
		}
		c.services[name] = m
	}
	if len(c.services) == 0 {
		t.Fatal("docker-compose.yml has no services")
	}
	return c
}

// byImage returns the name of the one service whose image starts with prefix.
func (c *compose) byImage(prefix string) string {
	c.t.Helper()
	var found []string
	for name, s := range c.services {
		if strings.HasPrefix(getString(s, "image"), prefix) {
			found = append(found, name)
		}
	}
	if len(found) != 1 {
		c.t.Fatalf("want one service with image %s*, got %v", prefix, found)
	}
	return found[0]
}

// built returns the name of the one service built from a Dockerfile.
func (c *compose) built() string {
	c.t.Helper()
	var found []string
	for name, s := range c.services {
		if get(s, "build") != nil {
			found = append(found, name)
		}
	}
	if len(found) != 1 {
		c.t.Fatalf("want one service with build:, got %v", found)
	}
	return found[0]
}

type mount struct{ host, container string } // host "" for a named volume

func (c *compose) mounts(service string) []mount {
	c.t.Helper()
	var out []mount
	for _, v := range getList(c.services[service], "volumes") {
		s, ok := v.(string)
		if !ok {
			c.t.Fatalf("service %s: volume %v is not in the short syntax", service, v)
		}
		parts := strings.Split(s, ":")
		if len(parts) < 2 || len(parts) > 3 {
			c.t.Fatalf("service %s: volume %q", service, s)
		}
		m := mount{container: parts[1]}
		if strings.HasPrefix(parts[0], ".") || strings.HasPrefix(parts[0], "/") {
			m.host = filepath.Join(c.dir, parts[0])
		}
		out = append(out, m)
	}
	return out
}

// toHost maps a path inside service's container to the repository file
// that a bind mount puts there.
func (c *compose) toHost(service, p string) string {
	c.t.Helper()
	best := mount{}
	for _, m := range c.mounts(service) {
		if m.host != "" && (p == m.container || strings.HasPrefix(p, m.container+"/")) && len(m.container) > len(best.container) {
			best = m
		}
	}
	if best.host == "" {
		c.t.Fatalf("service %s: %s is not below any bind mount", service, p)
	}
	return filepath.Join(best.host, filepath.FromSlash(strings.TrimPrefix(p, best.container)))
}

func (c *compose) env(service string) map[string]string {
	out := map[string]string{}
	for k, v := range getMap(c.services[service], "environment") {
		out[k] = fmt.Sprint(v)
	}
	return out
}

func (c *compose) command(service string) []string {
	c.t.Helper()
	l := getList(c.services[service], "command")
	if l == nil {
		c.t.Fatalf("service %s: command is not a list", service)
	}
	return stringList(l)
}

func TestComposeFile(t *testing.T) {
	c := loadCompose(t)
	usedVolumes := map[string]bool{}
	for name, s := range c.services {
		img := getString(s, "image")
		if img == "" && get(s, "build") == nil {
			t.Errorf("service %s has neither image nor build", name)
		}
		if get(s, "build") == nil {
			if i := strings.LastIndex(img, ":"); i < 0 || img[i+1:] == "latest" {
				t.Errorf("service %s: image %q is not pinned to a version", name, img)
			}
		}
		deps := stringList(getList(s, "depends_on"))
		for k := range getMap(s, "depends_on") {
			deps = append(deps, k)
		}
		for _, d := range deps {
			if c.services[d] == nil {
				t.Errorf("service %s depends on %s, which does not exist", name, d)
			}
		}
		for _, m := range c.mounts(name) {
			if m.host == "" {
				continue
			}
			if _, err := os.Stat(m.host); err != nil {
				t.Errorf("service %s mounts %s: %v", name, m.host, err)
			}
		}
		for _, v := range getList(s, "volumes") {
			src, _, _ := strings.Cut(v.(string), ":")
			if !strings.HasPrefix(src, ".") && !strings.HasPrefix(src, "/") {
				if _, ok := c.volumes[src]; !ok {
					t.Errorf("service %s uses volume %s, which is not declared", name, src)
				}
				usedVolumes[src] = true
			}
		}
		for _, p := range stringList(getList(s, "ports")) {
			if !strings.HasPrefix(p, "127.0.0.1:") {
				t.Errorf("service %s publishes %s on every interface; the demo binds to 127.0.0.1", name, p)
			}
		}
	}
	for v := range c.volumes {
		if !usedVolumes[v] {
			t.Errorf("volume %s is declared but unused", v)
		}
	}

	// Kafka: the version the tests run, KRaft.
	kafka := c.byImage("apache/kafka:")
	// The script's default; KAFKA_VERSION in the environment picks another.
	kv := regexp.MustCompile(`(?m)^KAFKA_DEFAULT_VERSION=(\S+)$`).FindSubmatch(readFile(t, repoPath(t, "scripts/kafka.sh")))
	if kv == nil {
		t.Fatal("scripts/kafka.sh has no KAFKA_DEFAULT_VERSION")
	}
	if img := getString(c.services[kafka], "image"); img != "apache/kafka:"+string(kv[1]) {
		t.Errorf("Kafka image %s, want apache/kafka:%s (scripts/kafka.sh, what the tests run)", img, kv[1])
	}
	env := c.env(kafka)
	if !strings.Contains(env["KAFKA_PROCESS_ROLES"], "controller") || env["KAFKA_CONTROLLER_QUORUM_VOTERS"] == "" {
		t.Errorf("Kafka is not a KRaft controller: %v", env)
	}
	if id, err := base64.RawURLEncoding.DecodeString(env["CLUSTER_ID"]); err != nil || len(id) != 16 {
		t.Errorf("CLUSTER_ID %q is not a base64 UUID", env["CLUSTER_ID"])
	}

	// The exporter: built from the repository's Dockerfile, its config file
	// mounted, valid and pointing at the Kafka service's advertised listener.
	exp := c.built()
	ctx := filepath.Join(c.dir, getString(c.services[exp], "build", "context"))
	df := getString(c.services[exp], "build", "dockerfile")
	if ctx != root(t) || df != "Dockerfile" {
		t.Errorf("exporter build %s/%s, want the repository's Dockerfile", ctx, df)
	}
	args := c.command(exp)
	_, cpath := replaceConfigFile(t, args, "")
	host := c.toHost(exp, cpath)
	checked, _ := replaceConfigFile(t, args, host)
	configCheck(t, "compose exporter", checked)
	cfg, err := config.LoadFile(host)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Kafka.Brokers) == 0 {
		t.Fatal("the demo exporter has no brokers (it would start the embedded cluster)")
	}
	for _, b := range cfg.Kafka.Brokers {
		h, _, err := net.SplitHostPort(b)
		if err != nil || c.services[h] == nil {
			t.Errorf("broker %s is not a service of the stack", b)
		}
		if !strings.Contains(env["KAFKA_ADVERTISED_LISTENERS"], "//"+b) {
			t.Errorf("broker %s is not among Kafka's advertised listeners %s", b, env["KAFKA_ADVERTISED_LISTENERS"])
		}
	}

	// With the compose plugin installed (it needs no engine for this), let
	// it validate the file against its schema too.
	docker, err := exec.LookPath("docker")
	if err != nil || exec.Command(docker, "compose", "version").Run() != nil {
		t.Log("docker compose is not installed: its schema check is not run")
		return
	}
	cmd := exec.Command(docker, "compose", "-f", "docker-compose.yml", "config", "--quiet")
	cmd.Dir = c.dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("docker compose config: %v\n%s", err, out)
	}
}

func TestComposePrometheus(t *testing.T) {
	c := loadCompose(t)
	prom := c.byImage("prom/prometheus:")
	var cfgPath string
	for _, a := range c.command(prom) {
		if v, ok := strings.CutPrefix(a, "--config.file="); ok {
			cfgPath = v
		}
	}
	if cfgPath == "" {
		t.Fatal("prometheus has no --config.file")
	}
	host := c.toHost(prom, cfgPath)
	if host != repoPath(t, composeDir+"/prometheus.yml") {
		t.Errorf("prometheus reads %s, want deploy/compose/prometheus.yml", host)
	}

	promtool := testenv.Tool(t, "promtool")
	out, err := exec.Command(promtool, "check", "config", host).CombinedOutput()
	if err != nil {
		t.Errorf("promtool check config: %v\n%s", err, out)
	}

	// rule_files resolve to every rule file of alerts/, both for promtool
	// (relative to the file on disk) and in the container (through the
	// mounts).
	pcfg := yamlDocs(t, host)[0]
	var want []string
	names, err := alerts.FileNames()
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		want = append(want, repoPath(t, "alerts/"+n))
	}
	var onDisk, inContainer []string
	for _, pat := range stringList(getList(pcfg, "rule_files")) {
		m, _ := filepath.Glob(filepath.Join(filepath.Dir(host), pat))
		onDisk = append(onDisk, m...)
		m, _ = filepath.Glob(c.toHost(prom, path.Join(path.Dir(cfgPath), pat)))
		inContainer = append(inContainer, m...)
	}
	sort.Strings(onDisk)
	sort.Strings(inContainer)
	if !slices.Equal(onDisk, want) || !slices.Equal(inContainer, want) {
		t.Errorf("rule_files resolve to %v on disk and %v in the container, want %v", onDisk, inContainer, want)
	}

	// Scrape targets are services of the stack; the exporter's job matches
	// the exporter-down alert.
	exp := c.built()
	jobRE := exporterDownJobRegex(t)
	scrapesExporter := false
	for _, sc := range getList(pcfg, "scrape_configs") {
		for _, st := range getList(sc, "static_configs") {
			for _, target := range stringList(getList(st, "targets")) {
				h, p, err := net.SplitHostPort(target)
				if err != nil {
					t.Errorf("target %q: %v", target, err)
					continue
				}
				if h != "localhost" && c.services[h] == nil {
					t.Errorf("target %s is not a service of the stack", target)
				}
				if h == exp {
					scrapesExporter = true
					if p != "10092" {
						t.Errorf("exporter target %s, want port 10092", target)
					}
					if job := getString(sc, "job_name"); !jobRE.MatchString(job) {
						t.Errorf("job %q does not match KafkaBenchExporterDown's job=~%q", job, jobRE)
					}
				}
			}
		}
	}
	if !scrapesExporter {
		t.Errorf("prometheus.yml does not scrape the exporter service %s", exp)
	}
}

func TestComposeGrafana(t *testing.T) {
	c := loadCompose(t)
	g := c.byImage("grafana/grafana:")
	prov := c.toHost(g, "/etc/grafana/provisioning")

	// Data sources: parse, have a uid, point at a service of the stack.
	dsFiles, _ := filepath.Glob(filepath.Join(prov, "datasources", "*.yml"))
	if len(dsFiles) == 0 {
		t.Fatal("no data source provisioning file")
	}
	defaults := 0
	for _, f := range dsFiles {
		doc := yamlDocs(t, f)[0]
		if get(doc, "apiVersion") != 1 {
			t.Errorf("%s: apiVersion %v, want 1", f, get(doc, "apiVersion"))
		}
		for _, ds := range getList(doc, "datasources") {
			if getString(ds, "name") == "" || getString(ds, "uid") == "" || getString(ds, "type") != "prometheus" {
				t.Errorf("%s: data source %v needs name, uid and type prometheus", f, ds)
			}
			if get(ds, "isDefault") == true {
				defaults++
			}
			u, err := url.Parse(getString(ds, "url"))
			if err != nil || c.services[u.Hostname()] == nil {
				t.Errorf("%s: url %q is not a service of the stack", f, getString(ds, "url"))
			} else if u.Port() != "9090" {
				t.Errorf("%s: url %q, want Prometheus's port 9090", f, getString(ds, "url"))
			}
		}
	}
	if defaults != 1 {
		t.Errorf("%d default data sources, want 1 (the dashboards' ${datasource} picks the default)", defaults)
	}

	// Dashboard providers point at exactly the dashboards of dashboards/.
	provFiles, _ := filepath.Glob(filepath.Join(prov, "dashboards", "*.yml"))
	if len(provFiles) == 0 {
		t.Fatal("no dashboard provider file")
	}
	want, err := dashboards.FileNames()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range provFiles {
		doc := yamlDocs(t, f)[0]
		if get(doc, "apiVersion") != 1 {
			t.Errorf("%s: apiVersion %v, want 1", f, get(doc, "apiVersion"))
		}
		providers := getList(doc, "providers")
		if len(providers) == 0 {
			t.Errorf("%s: no providers", f)
		}
		for _, p := range providers {
			if getString(p, "type") != "file" {
				t.Errorf("%s: provider type %q, want file", f, getString(p, "type"))
			}
			dir := c.toHost(g, getString(p, "options", "path"))
			files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
			var got []string
			for _, j := range files {
				var d struct{ UID, Title string }
				if err := json.Unmarshal(readFile(t, j), &d); err != nil || d.UID == "" {
					t.Errorf("%s: not a dashboard with a uid: %v", j, err)
				}
				got = append(got, filepath.Base(j))
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s: provider path %s holds %v, want the dashboards %v", f, getString(p, "options", "path"), got, want)
			}
		}
	}

	if home := c.env(g)["GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH"]; home != "" {
		if _, err := os.Stat(c.toHost(g, home)); err != nil {
			t.Errorf("home dashboard %s: %v", home, err)
		}
	}
}
