{{- define "browserfn.name" -}}{{ .Release.Name }}-browserfn{{- end -}}
{{- define "browserfn.labels" -}}
app.kubernetes.io/name: browserfn
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
{{- end -}}
{{- define "browserfn.secretName" -}}{{ default (printf "%s-keys" (include "browserfn.name" .)) .Values.existingSecret }}{{- end -}}
{{- define "browserfn.image" -}}{{ .Values.image.repository }}:{{ .Values.image.tag }}{{- end -}}
