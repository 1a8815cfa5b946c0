package integration

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kafka-bench/kafka_bench_exporter/internal/exportertest"
	"github.com/kafka-bench/kafka_bench_exporter/internal/kafkatest"
	"github.com/kafka-bench/kafka_bench_exporter/internal/testenv"
	"github.com/kafka-bench/kafka_bench_exporter/probes/probetest"
)

const krbRealm = "KAFKA-BENCH.TEST"

// testKDC is a real MIT Kerberos KDC on a loopback port, with its database,
// configuration and keytabs in a temporary directory.
type testKDC struct {
	dir, krb5conf string
	env           []string
}

func startKDC(t *testing.T) *testKDC {
	t.Helper()
	for _, tool := range []string{"krb5kdc", "kdb5_util", "kadmin.local"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed (apt-get install krb5-kdc krb5-admin-server; scripts/test.sh does): %v", tool, err)
		}
	}
	dir := t.TempDir()
	port := testenv.FreePort(t)
	k := &testKDC{dir: dir, krb5conf: filepath.Join(dir, "krb5.conf")}
	kdcConf := filepath.Join(dir, "kdc.conf")
	writeBytes(t, kdcConf, fmt.Appendf(nil, `[kdcdefaults]
 kdc_ports = %[1]d
 kdc_tcp_ports = %[1]d
[realms]
 %[2]s = {
  database_name = %[3]s/principal
  key_stash_file = %[3]s/stash
  acl_file = %[3]s/kadm5.acl
  kdc_ports = %[1]d
  kdc_tcp_ports = %[1]d
  max_life = 1h
  supported_enctypes = aes256-cts-hmac-sha1-96:normal aes128-cts-hmac-sha1-96:normal
 }
[logging]
 kdc = FILE:%[3]s/kdc.log
`, port, krbRealm, dir))
	writeBytes(t, k.krb5conf, fmt.Appendf(nil, `[libdefaults]
 default_realm = %[2]s
 dns_lookup_realm = false
 dns_lookup_kdc = false
 rdns = false
 udp_preference_limit = 1
 ticket_lifetime = 1h
[realms]
 %[2]s = {
  kdc = 127.0.0.1:%[1]d
 }
`, port, krbRealm))
	writeBytes(t, filepath.Join(dir, "kadm5.acl"), nil)
	k.env = append(os.Environ(), "KRB5_CONFIG="+k.krb5conf, "KRB5_KDC_PROFILE="+kdcConf)
	k.run(t, "kdb5_util", "-r", krbRealm, "create", "-s", "-P", "kdc-master-pw")
	cmd := exec.Command("krb5kdc", "-n", "-r", krbRealm)
	cmd.Env = k.env
	out, err := os.Create(filepath.Join(dir, "krb5kdc.out"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Killed on purpose: Wait's error says only that.
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		_ = out.Close() // the KDC wrote through its own descriptor
	})
	probetest.Eventually(t, 30*time.Second, "the KDC listening", func() (bool, string) {
		c, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), time.Second)
		if err != nil {
			return false, err.Error()
		}
		_ = c.Close() // a probe of the port: nothing was sent
		return true, ""
	})
	return k
}

func (k *testKDC) run(t *testing.T, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = k.env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

// principal adds a principal with a random key and writes it to keytab.
func (k *testKDC) principal(t *testing.T, name, keytab string) {
	t.Helper()
	k.run(t, "kadmin.local", "-r", krbRealm, "-q", "addprinc -randkey "+name+"@"+krbRealm)
	k.ktadd(t, name, keytab)
}

// ktadd writes a new random key of the principal to keytab: keytabs written
// before hold a key the KDC no longer accepts.
func (k *testKDC) ktadd(t *testing.T, name, keytab string) {
	t.Helper()
	k.run(t, "kadmin.local", "-r", krbRealm, "-q", "ktadd -k "+keytab+" "+name+"@"+krbRealm)
}

// GSSAPI on a real MIT KDC and a broker with a SASL_PLAINTEXT GSSAPI
// listener: the probe logs in with its keytab and flows with nothing lost
// or failed; a keytab holding an old key is refused, with an
// authentication ERROR naming the principal and Kerberos's reason, and the
// probe down.
func TestAuthKerberos(t *testing.T) {
	parallel(t) // waits more than it computes; see waiting in main_test.go
	kafkatest.Integration(t)
	kdc := startKDC(t)
	brokerKeytab := filepath.Join(kdc.dir, "kafka.keytab")
	kdc.principal(t, "kafka/127.0.0.1", brokerKeytab)
	staleKeytab, clientKeytab := filepath.Join(kdc.dir, "bench-old.keytab"), filepath.Join(kdc.dir, "bench.keytab")
	kdc.principal(t, "bench", staleKeytab)
	kdc.ktadd(t, "bench", clientKeytab)

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c, err := kafkatest.StartCluster(ctx, kafkatest.Options{SASLSSL: &kafkatest.SASLSSL{
		Users:     map[string]string{secureUser: securePassword},
		PlainText: true,
		Kerberos: &kafkatest.Kerberos{Principal: "kafka/127.0.0.1@" + krbRealm, Keytab: brokerKeytab,
			Krb5Conf: kdc.krb5conf},
	}}, t.Logf)
	if err != nil {
		t.Fatalf("starting the broker: %v", err)
	}
	t.Cleanup(c.Close)
	section := func(keytab string) string {
		return fmt.Sprintf(`kafka:
  brokers: [%s]
  sasl:
    mechanism: GSSAPI
    username: bench
    kerberos: {realm: %s, keytab_file: %s, config_file: %s}
`, strings.Join(c.SecureBootstrap(), ", "), krbRealm, keytab, kdc.krb5conf)
	}
	probe := func(name string) string {
		return fmt.Sprintf(`
probes:
  - name: %s
    rate: 300
    record_size: 256
    lag_interval: 1s
    create_topic: {partitions: 3, replication_factor: 1}
`, name)
	}

	t.Run("keytab", func(t *testing.T) {
		x := exportertest.Start(t, section(clientKeytab)+probe("kerberos"), c.SecureBootstrap())
		x.WaitReady(t, 60*time.Second)
		probetest.Eventually(t, 60*time.Second, "1000 records produced", func() (bool, string) {
			p := value(t, x.Scrape(t), "kafka_bench_produced_records_total", "kerberos")
			return p >= 1000, fmt.Sprintf("produced %v", p)
		})
		f := drain(t, x, "kerberos")
		assertCounters(t, f, "kerberos", clean)
		assertCounters(t, f, "kerberos", map[string]float64{"kafka_bench_produce_failed_total": 0})
	})

	t.Run("stale keytab", func(t *testing.T) {
		logs := &probetest.Logs{}
		var w io.Writer = logs
		if testing.Verbose() {
			w = io.MultiWriter(logs, os.Stderr)
		}
		x := exportertest.StartLogged(t, section(staleKeytab)+probe("kerberos-stale"), c.SecureBootstrap(), slog.New(slog.NewTextHandler(w, nil)))
		probetest.Eventually(t, 60*time.Second, "the refused login logged as the probe's reason", func() (bool, string) {
			reason := ""
			for l := range strings.SplitSeq(logs.String(), "\n") {
				if strings.Contains(l, "level=ERROR") && strings.Contains(l, "authentication failed") && strings.Contains(l, "reason=auth") &&
					strings.Contains(l, "Kerberos login of bench@"+krbRealm) {
					reason = l
				}
			}
			up := value(t, x.Scrape(t), "kafka_bench_probe_up", "kerberos-stale")
			return reason != "" && up == 0, fmt.Sprintf("probe_up=%v, auth ERROR: %q", up, reason)
		})
		if !strings.Contains(logs.String(), "client password/keytab incorrect") {
			t.Errorf("the log does not give Kerberos's reason (password/keytab incorrect):\n%s", logs.String())
		}
		if p := value(t, x.Scrape(t), "kafka_bench_produced_records_total", "kerberos-stale"); p != 0 {
			t.Errorf("%v records produced with a stale keytab", p)
		}
	})
}
