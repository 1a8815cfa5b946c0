package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --config.check prints the effective configuration with the password
// redacted, whatever its source.
func TestConfigCheckRedactsSecrets(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "pw"), []byte("file-pw-123\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, sasl := range map[string]string{
		"inline": "password: inline-pw-123",
		"file":   "password_file: pw",
	} {
		t.Run(name, func(t *testing.T) {
			cfg := filepath.Join(dir, name+".yml")
			if err := os.WriteFile(cfg, []byte("kafka:\n  brokers: [127.0.0.1:9092]\n  sasl: {mechanism: SCRAM-SHA-512, username: alice, "+sasl+"}\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			code, stdout, stderr := runCaptured(t, "--config.check", "--config.file", cfg)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if strings.Contains(stdout+stderr, "-pw-123") {
				t.Errorf("--config.check shows the password:\n%s", stdout)
			}
			if !strings.Contains(stdout, "username: alice") || !strings.Contains(stdout, "mechanism: SCRAM-SHA-512") {
				t.Errorf("--config.check lacks the SASL settings:\n%s", stdout)
			}
			if name == "inline" && !strings.Contains(stdout, "password: <secret>") {
				t.Errorf("inline password not shown as <secret>:\n%s", stdout)
			}
		})
	}
}
