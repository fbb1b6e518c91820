{{- define "farm.fullname" -}}
{{- printf "%s-farm" .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "farm.labels" -}}
app.kubernetes.io/name: farm
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "farm.brokerSecret" -}}
{{- if .Values.broker.existingSecret -}}
{{ .Values.broker.existingSecret }}
{{- else -}}
{{ include "farm.fullname" . }}-broker
{{- end -}}
{{- end -}}
