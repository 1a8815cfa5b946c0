package spec

import (
	"strings"
	"text/template"
	"time"

	"github.com/prometheus/common/model"
	"go.yaml.in/yaml/v3"

	"github.com/kafka-bench/kafka_bench_exporter/config"
)

// DefaultRestartTimeout bounds one broker's restart: the hook and the
// broker coming back.
const DefaultRestartTimeout = 10 * time.Minute

// Restart is the bench file's restart block: how a broker is restarted so
// that static broker settings (broker.<key> that Kafka cannot change at
// run time) take effect. With it, such settings are legal in scenarios and
// the matrix; the bench restarts one broker at a time.
type Restart struct {
	// Command is a shell command, a Go template with {{.BrokerID}},
	// {{.Host}} and {{.SettingsFile}}, run once per broker (sh -c). It
	// gets the settings to apply in the environment and in a file
	// (package brokercfg, restart.go) and returns once the broker restarts.
	Command string `yaml:"command"`
	// Timeout bounds the command and the broker's return.
	Timeout model.Duration `yaml:"timeout"`
	// PreferredLeaders elects the preferred leaders once a broker is back.
	PreferredLeaders bool `yaml:"preferred_leaders"`
}

// RestartData is what the command template sees.
type RestartData struct {
	BrokerID int32
	// Host is the broker's host as the cluster's metadata advertises it.
	Host string
	// SettingsFile holds the broker's static settings, key=value lines.
	SettingsFile string
}

// UnmarshalYAML fills the defaults before the block's keys apply.
func (r *Restart) UnmarshalYAML(n *yaml.Node) error {
	r.Timeout = model.Duration(DefaultRestartTimeout)
	type plain Restart
	return n.Decode((*plain)(r))
}

// Template is the command's template, checked by validate.
func (r *Restart) Template() (*template.Template, error) {
	return template.New("restart.command").Option("missingkey=error").Parse(r.Command)
}

// validate checks the block; it is pure (the command is not run).
func (r *Restart) validate() error {
	if strings.TrimSpace(r.Command) == "" {
		return config.FieldError("", "restart.command", r.Command, "set the command that restarts one broker, such as: ssh {{.Host}} sudo systemctl restart kafka")
	}
	t, err := r.Template()
	if err != nil {
		return config.FieldError("", "restart.command", r.Command, "invalid template: "+lastPart(err))
	}
	if err := t.Execute(discard{}, RestartData{BrokerID: 1, Host: "kafka1", SettingsFile: "/tmp/settings"}); err != nil {
		return config.FieldError("", "restart.command", r.Command, "invalid template: "+lastPart(err)+" (the fields are {{.BrokerID}}, {{.Host}} and {{.SettingsFile}})")
	}
	if r.Timeout <= 0 {
		return config.FieldError("", "restart.timeout", r.Timeout, "must be > 0")
	}
	return nil
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// lastPart is a template error without the positions text/template puts
// before it.
func lastPart(err error) string {
	msg := err.Error()
	if _, last, ok := strings.CutLast(msg, ": "); ok {
		return last
	}
	return msg
}
