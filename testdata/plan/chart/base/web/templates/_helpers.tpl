{{/* The chart's names: the manifests render only with this partial beside them. */}}
{{- define "web.fullname" -}}
{{ .Release.Name }}-web
{{- end -}}
