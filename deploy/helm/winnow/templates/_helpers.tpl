{{/* The release's base name: <release>-winnow, or the release name when it already says winnow. */}}
{{- define "winnow.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 50 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 50 | trimSuffix "-" -}}
{{- end -}}
{{- end }}

{{/* Labels of every object of the release (for the default-deny and DNS policies). */}}
{{- define "winnow.releaseSelector" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/* Selector of one component; called with (dict "root" $ "name" "<component>"). */}}
{{- define "winnow.selectorLabels" -}}
{{ include "winnow.releaseSelector" .root }}
app.kubernetes.io/component: {{ .name }}
{{- end }}

{{/* All labels of one component's objects; called with (dict "root" $ "name" "<component>"). */}}
{{- define "winnow.labels" -}}
{{ include "winnow.selectorLabels" . }}
app.kubernetes.io/part-of: winnow
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .root.Chart.Name .root.Chart.Version }}
{{- end }}

{{/* <registry>/winnow-<component>:<tag>, unless the component's image says otherwise. */}}
{{- define "winnow.image" -}}
{{- $svc := index .root.Values .name -}}
{{- $repository := $svc.image.repository | default (printf "%s/winnow-%s" .root.Values.image.registry .name) -}}
{{- $tag := $svc.image.tag | default .root.Values.image.tag | default .root.Chart.AppVersion -}}
{{- printf "%s:%s" $repository $tag -}}
{{- end }}

{{- define "winnow.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- .Values.serviceAccount.name | default (include "winnow.fullname" .) -}}
{{- else -}}
{{- .Values.serviceAccount.name | default "default" -}}
{{- end -}}
{{- end }}

{{/*
A component's environment: how it listens and whom it calls, the shutdown grace, OpenTelemetry,
then its values' env and secretEnv. Every name here must be one the service validates at
start-up (test/deploy checks it). Called with (dict "root" $ "name" "<component>").
*/}}
{{- define "winnow.env" -}}
{{- $root := .root -}}
{{- $svc := index $root.Values .name -}}
{{- $fullname := include "winnow.fullname" $root -}}
{{- if eq .name "gateway" }}
- name: HOST
  value: "0.0.0.0"
- name: PORT
  value: {{ $svc.port | quote }}
- name: JOBS_ADDR
  value: {{ printf "%s-jobs:%v" $fullname $root.Values.jobs.port | quote }}
{{- else }}
- name: GRPC_HOST
  value: "0.0.0.0"
- name: GRPC_PORT
  value: {{ $svc.port | quote }}
{{- end }}
{{- if has .name (list "gateway" "jobs") }}
- name: AUTH_ADDR
  value: {{ printf "%s-auth:%v" $fullname $root.Values.auth.port | quote }}
- name: RENDERER_ADDR
  value: {{ printf "%s-renderer:%v" $fullname $root.Values.renderer.port | quote }}
- name: EXTRACTOR_ADDR
  value: {{ printf "%s-extractor:%v" $fullname $root.Values.extractor.port | quote }}
{{- end }}
- name: SHUTDOWN_GRACE_MS
  value: {{ mul $root.Values.lifecycle.shutdownGraceSeconds 1000 | quote }}
- name: METRICS_HOST
  value: "0.0.0.0"
- name: METRICS_PORT
  value: {{ $root.Values.metrics.port | quote }}
- name: OTEL_SERVICE_NAME
  valueFrom:
    fieldRef:
      fieldPath: metadata.labels['app.kubernetes.io/component']
- name: OTEL_K8S_POD_NAME
  valueFrom:
    fieldRef:
      fieldPath: metadata.name
- name: OTEL_K8S_NAMESPACE
  valueFrom:
    fieldRef:
      fieldPath: metadata.namespace
- name: OTEL_RESOURCE_ATTRIBUTES
  value: {{ printf "service.namespace=%s,k8s.pod.name=$(OTEL_K8S_POD_NAME),k8s.namespace.name=$(OTEL_K8S_NAMESPACE)" $fullname | quote }}
{{- with $root.Values.otel.endpoint }}
- name: OTEL_EXPORTER_OTLP_ENDPOINT
  value: {{ . | quote }}
{{- end }}
{{- range $name, $value := $svc.env }}
- name: {{ $name }}
  value: {{ $value | quote }}
{{- end }}
{{- range $name, $ref := $svc.secretEnv }}
- name: {{ $name }}
  valueFrom:
    secretKeyRef:
      name: {{ $ref.name | default $root.Values.existingSecret }}
      key: {{ $ref.key }}
      {{- if $ref.optional }}
      optional: true
      {{- end }}
{{- end }}
{{- end }}
