{{/* Names and labels (the Helm chart conventions: app.kubernetes.io/*). */}}
{{- define "warden.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 50 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 50 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "warden.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: agent-warden
{{- end -}}

{{- define "warden.selector" -}}
app.kubernetes.io/name: {{ .root.Chart.Name }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "warden.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{- define "warden.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "warden.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* The environment every service gets: connections, and secrets as files (`<NAME>_FILE`). */}}
{{- define "warden.env" -}}
- name: DATABASE_URL_FILE
  value: /run/secrets/warden/{{ .Values.secrets.databaseUrlKey }}
- name: KAFKA_BROKERS
  value: {{ .Values.kafka.brokers | quote }}
- name: REDIS_URL
  value: {{ .Values.redis.url | quote }}
- name: LOG_LEVEL
  value: {{ .Values.logLevel | quote }}
- name: NODE_ENV
  value: production
- name: WARDEN_DATA_DIR
  value: /data
{{- end -}}

{{/* The secret volume (read-only files) and the writable scratch volumes (the root filesystem is read-only). */}}
{{- define "warden.volumes" -}}
- name: secrets
  secret:
    secretName: {{ .Values.secrets.existingSecret }}
    defaultMode: 0440
- name: data
  emptyDir: {}
- name: tmp
  emptyDir: {}
{{- end -}}

{{- define "warden.volumeMounts" -}}
- name: secrets
  mountPath: /run/secrets/warden
  readOnly: true
- name: data
  mountPath: /data
- name: tmp
  mountPath: /tmp
{{- end -}}
