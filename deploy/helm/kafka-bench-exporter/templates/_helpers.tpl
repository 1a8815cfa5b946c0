{{/* The chart's name. */}}
{{- define "kbe.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The name of every object: the release name when it already contains the
chart's name (release "kafka-bench-exporter" gives kafka-bench-exporter), else
<release>-<chart>. The Service's name is the Operator's job label.
*/}}
{{- define "kbe.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "kbe.selectorLabels" -}}
app.kubernetes.io/name: {{ include "kbe.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/* The exporter's pods; the host agent's have component host-agent. */}}
{{- define "kbe.exporterSelectorLabels" -}}
{{ include "kbe.selectorLabels" . }}
app.kubernetes.io/component: exporter
{{- end }}

{{- define "kbe.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "kbe.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/* repository@digest when image.digest is set (the tag unused), else repository:tag. */}}
{{- define "kbe.image" -}}
{{- if .Values.image.digest -}}
{{ .Values.image.repository }}@{{ .Values.image.digest }}
{{- else -}}
{{ .Values.image.repository }}:{{ default .Chart.AppVersion .Values.image.tag }}
{{- end }}
{{- end }}

{{/* Where the exporter reads its files. */}}
{{- define "kbe.configDir" -}}/etc/kafka_bench_exporter{{- end }}
{{- define "kbe.webConfigDir" -}}{{ include "kbe.secretsDir" . }}/web{{- end }}
{{- define "kbe.secretsDir" -}}/var/run/secrets/kafka-bench-exporter{{- end }}

{{- define "kbe.configMapName" -}}
{{- default (printf "%s-config" (include "kbe.fullname" .)) .Values.existingConfigMap }}
{{- end }}

{{/* The instance label of the scrape configurations. */}}
{{- define "kbe.instance" -}}
{{- default .Release.Name .Values.instance }}
{{- end }}

{{/*
config.yml: .Values.config with kafka.tls and kafka.sasl added from kafkaTLS
and kafkaSASL, pointing at the files their Secrets are mounted as.
*/}}
{{- define "kbe.config" -}}
{{- $cfg := deepCopy .Values.config }}
{{- $kafka := default dict (get $cfg "kafka") }}
{{- $dir := include "kbe.secretsDir" . }}
{{- with .Values.kafkaTLS }}
{{- if .enabled }}
{{- $tls := dict "enabled" true }}
{{- if .caSecret.name }}
{{- $_ := set $tls "ca_file" (printf "%s/ca/%s" $dir .caSecret.key) }}
{{- end }}
{{- if .clientCertSecret.name }}
{{- $_ := set $tls "cert_file" (printf "%s/client/%s" $dir .clientCertSecret.certKey) }}
{{- $_ := set $tls "key_file" (printf "%s/client/%s" $dir .clientCertSecret.keyKey) }}
{{- end }}
{{- if .serverName }}
{{- $_ := set $tls "server_name" .serverName }}
{{- end }}
{{- $_ := set $kafka "tls" $tls }}
{{- end }}
{{- end }}
{{- with .Values.kafkaSASL }}
{{- if eq .mechanism "OAUTHBEARER" }}
{{- $o := .oauth }}
{{- $oauth := dict }}
{{- if and $o.tokenSecret.name $o.tokenEndpoint }}
{{- fail "kafkaSASL.oauth: set tokenEndpoint (client credentials) or tokenSecret.name (a token file), not both" }}
{{- else if $o.tokenSecret.name }}
{{- $_ := set $oauth "token_file" (printf "%s/sasl/%s" $dir $o.tokenSecret.key) }}
{{- else }}
{{- $oauth = dict "token_endpoint" (required "kafkaSASL.oauth.tokenEndpoint (or tokenSecret.name) is required with OAUTHBEARER" $o.tokenEndpoint) "client_id" (required "kafkaSASL.oauth.clientId is required with OAUTHBEARER" $o.clientId) }}
{{- $_ := required "kafkaSASL.oauth.clientSecretSecret.name is required with OAUTHBEARER" $o.clientSecretSecret.name }}
{{- $_ := set $oauth "client_secret_file" (printf "%s/sasl/%s" $dir $o.clientSecretSecret.key) }}
{{- if $o.scope }}
{{- $_ := set $oauth "scope" $o.scope }}
{{- end }}
{{- end }}
{{- with $o.extensions }}
{{- $_ := set $oauth "extensions" . }}
{{- end }}
{{- $_ := set $kafka "sasl" (dict "mechanism" .mechanism "oauth" $oauth) }}
{{- else if eq .mechanism "AWS_MSK_IAM" }}
{{- $aws := dict }}
{{- range $valueName, $configKey := dict "region" "region" "profile" "profile" "roleArn" "role_arn" "sessionName" "session_name" }}
{{- with get $.Values.kafkaSASL.aws $valueName }}
{{- $_ := set $aws $configKey . }}
{{- end }}
{{- end }}
{{- $_ := set $kafka "sasl" (dict "mechanism" .mechanism "aws" $aws) }}
{{- else if eq .mechanism "GSSAPI" }}
{{- $k := .kerberos }}
{{- $_ := required "kafkaSASL.kerberos.secret.name is required with GSSAPI" $k.secret.name }}
{{- $krb := dict "keytab_file" (printf "%s/sasl/%s" $dir $k.secret.keytabKey) "config_file" (printf "%s/sasl/%s" $dir $k.secret.krb5ConfKey) }}
{{- if $k.realm }}
{{- $_ := set $krb "realm" $k.realm }}
{{- end }}
{{- if $k.serviceName }}
{{- $_ := set $krb "service_name" $k.serviceName }}
{{- end }}
{{- $_ := set $kafka "sasl" (dict "mechanism" .mechanism "username" (required "kafkaSASL.username is required with kafkaSASL.mechanism" .username) "kerberos" $krb) }}
{{- else if .mechanism }}
{{- $sasl := dict "mechanism" .mechanism "username" (required "kafkaSASL.username is required with kafkaSASL.mechanism" .username) }}
{{- $_ := required "kafkaSASL.passwordSecret.name is required with kafkaSASL.mechanism" .passwordSecret.name }}
{{- $_ := set $sasl "password_file" (printf "%s/sasl/%s" $dir .passwordSecret.key) }}
{{- $_ := set $kafka "sasl" $sasl }}
{{- end }}
{{- end }}
{{- $_ := set $cfg "kafka" $kafka }}
{{- toYaml $cfg }}
{{- end }}

{{/*
The items of the kafka-sasl Secret volume: the password, the OAuth client
secret or token, or the keytab and krb5.conf; empty without SASL and with
AWS_MSK_IAM, whose credentials come from the pod's AWS chain.
*/}}
{{- define "kbe.saslSecret" -}}
{{- with .Values.kafkaSASL }}
{{- $name := "" }}
{{- $keys := list }}
{{- if eq .mechanism "GSSAPI" }}
{{- $name = .kerberos.secret.name }}
{{- $keys = list .kerberos.secret.keytabKey .kerberos.secret.krb5ConfKey }}
{{- else if eq .mechanism "OAUTHBEARER" }}
{{- $s := .oauth.clientSecretSecret }}
{{- if .oauth.tokenSecret.name }}
{{- $s = .oauth.tokenSecret }}
{{- end }}
{{- $name = $s.name }}
{{- $keys = list $s.key }}
{{- else if and .mechanism (ne .mechanism "AWS_MSK_IAM") }}
{{- $name = .passwordSecret.name }}
{{- $keys = list .passwordSecret.key }}
{{- end }}
{{- if $name -}}
secretName: {{ $name }}
defaultMode: 0440
items:
{{- range $keys }}
  - key: {{ . }}
    path: {{ . }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}

{{/* The kubelet's check of the web port: HTTP(S) unless basic auth is on. */}}
{{- define "kbe.httpCheck" -}}
{{- if .root.Values.webConfig.basicAuth -}}
tcpSocket:
  port: http-metrics
{{- else -}}
httpGet:
  path: {{ .path }}
  port: http-metrics
  scheme: {{ .root.Values.webConfig.tls | ternary "HTTPS" "HTTP" }}
{{- end }}
periodSeconds: 10
timeoutSeconds: 5
failureThreshold: 3
{{- end }}

{{/*
One endpoint of a ServiceMonitor or PodMonitor: the metrics port, the
instance and cluster target labels set to the cluster's name, then the
user's relabelings, metricRelabelings and endpoint fields (scheme,
tlsConfig, basicAuth, ...).
*/}}
{{- define "kbe.scrapeEndpoint" -}}
{{- $ep := dict "port" "http-metrics" "path" "/metrics" "interval" .mon.interval "scrapeTimeout" .mon.scrapeTimeout }}
{{- $relabel := list (dict "action" "replace" "targetLabel" "instance" "replacement" (include "kbe.instance" .root)) }}
{{- $relabel = append $relabel (dict "action" "replace" "targetLabel" "cluster" "replacement" (include "kbe.cluster" .root)) }}
{{- $_ := set $ep "relabelings" (concat $relabel .mon.relabelings) }}
{{- with .mon.metricRelabelings }}
{{- $_ := set $ep "metricRelabelings" . }}
{{- end }}
{{- toYaml (merge (deepCopy .mon.endpoint) $ep) }}
{{- end }}

{{/* The cluster label of the scrape configurations: cluster, else instance. */}}
{{- define "kbe.cluster" -}}
{{- default (include "kbe.instance" .) .Values.cluster }}
{{- end }}

{{/*
Exactly one of ServiceMonitor and PodMonitor: both would scrape every series
twice and double every sum and alert.
*/}}
{{- define "kbe.checkMonitors" -}}
{{- if and .Values.serviceMonitor.enabled .Values.podMonitor.enabled }}
{{- fail "serviceMonitor.enabled and podMonitor.enabled are both true: enable one, or Prometheus scrapes every series twice and doubles every sum and alert" }}
{{- end }}
{{- end }}

{{/*
The job label the Operator gives the exporter's scrapes (the Service's name,
or <namespace>/<PodMonitor name>), as the matcher of the exporter-health
alerts; prometheusRule.jobSelector overrides it.
*/}}
{{- define "kbe.jobSelector" -}}
{{- if .Values.prometheusRule.jobSelector }}
{{- .Values.prometheusRule.jobSelector }}
{{- else if .Values.podMonitor.enabled }}
{{- printf "job=%q" (printf "%s/%s" (default .Release.Namespace .Values.podMonitor.namespace) (include "kbe.fullname" .)) }}
{{- else }}
{{- printf "job=%q" (include "kbe.fullname" .) }}
{{- end }}
{{- end }}

{{/*
GOMEMLIMIT: 90 % of resources.limits.memory in bytes (as Prometheus sizes
its own), leaving room for what the Go runtime does not count; empty without
a memory limit.
*/}}
{{- define "kbe.goMemLimit" -}}
{{- with dig "limits" "memory" "" .Values.resources }}
{{- $s := toString . }}
{{- $num := regexFind "^[0-9.]+" $s }}
{{- $unit := trimPrefix $num $s }}
{{- $mult := get (dict "" 1 "k" 1000 "M" 1000000 "G" 1000000000 "T" 1000000000000 "Ki" 1024 "Mi" 1048576 "Gi" 1073741824 "Ti" 1099511627776) $unit }}
{{- if not $mult }}
{{- fail (printf "resources.limits.memory = %q: want a number with an optional k, M, G, T, Ki, Mi, Gi or Ti suffix" $s) }}
{{- end }}
{{- mulf (float64 $num) $mult 0.9 | floor | int64 }}
{{- end }}
{{- end }}

{{/* The pod's ServiceAccount: the chart's, a named one, or the namespace's default. */}}
{{- define "kbe.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "kbe.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- .Values.serviceAccount.name }}
{{- end }}
{{- end }}
