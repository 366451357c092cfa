{{- define "browserfn.name" -}}{{ .Release.Name }}-browserfn{{- end -}}

{{- define "browserfn.labels" -}}
app.kubernetes.io/name: browserfn
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{/* Selector labels of one component: api or operator. */}}
{{- define "browserfn.selector" -}}
app.kubernetes.io/name: browserfn
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "browserfn.image" -}}{{ .Values.image.repository }}:{{ default .Chart.AppVersion .Values.image.tag }}{{- end -}}

{{/* The project namespaces: the listed ones, or the release namespace alone. */}}
{{- define "browserfn.projectNamespaces" -}}
{{- $names := list -}}
{{- range .Values.projects }}{{ $names = append $names .namespace }}{{ end -}}
{{- if not $names }}{{ $names = list .Release.Namespace }}{{ end -}}
{{- toJson $names -}}
{{- end -}}

{{- define "browserfn.apiKeysSecret" -}}{{ default (printf "%s-api-keys" (include "browserfn.name" .)) .Values.apiKeys.existingSecret }}{{- end -}}
{{- define "browserfn.podTokenSecret" -}}{{ include "browserfn.name" . }}-pod-token{{- end -}}
{{- define "browserfn.metricsTokenSecret" -}}{{ include "browserfn.name" . }}-metrics-token{{- end -}}
{{- define "browserfn.apiURL" -}}http://{{ include "browserfn.name" . }}-api.{{ .Release.Namespace }}.svc:{{ .Values.api.service.port }}{{- end -}}

{{/* Pod-level settings both Deployments share. */}}
{{- define "browserfn.podSpecCommon" -}}
automountServiceAccountToken: true
enableServiceLinks: false
securityContext: { runAsNonRoot: true, runAsUser: 10001, runAsGroup: 10001, fsGroup: 10001, seccompProfile: { type: RuntimeDefault } }
{{- with .Values.image.pullSecrets }}
imagePullSecrets:
{{- range . }}
  - name: {{ . }}
{{- end }}
{{- end }}
{{- end -}}

{{/* Environment of the API and operator containers beyond the shared ConfigMap: secrets by reference. */}}
{{- define "browserfn.secretEnv" -}}
- name: BROWSERFN_POD_TOKEN_SECRET
  valueFrom: { secretKeyRef: { name: {{ include "browserfn.podTokenSecret" . }}, key: BROWSERFN_POD_TOKEN_SECRET } }
- name: BROWSERFN_METRICS_TOKEN
  valueFrom: { secretKeyRef: { name: {{ include "browserfn.metricsTokenSecret" . }}, key: token } }
{{- with .Values.browserProxy }}
{{- if .existingSecret }}
- name: BROWSERFN_BROWSER_PROXY
  valueFrom: { secretKeyRef: { name: {{ .existingSecret }}, key: {{ .existingSecretKey }} } }
{{- end }}
{{- end }}
{{- with .Values.artifactStore.s3.credentialsSecret }}
{{- if and (eq $.Values.artifactStore.type "s3") .name }}
- name: BROWSERFN_S3_ACCESS_KEY_ID
  valueFrom: { secretKeyRef: { name: {{ .name }}, key: {{ .accessKeyIdKey }} } }
- name: BROWSERFN_S3_SECRET_ACCESS_KEY
  valueFrom: { secretKeyRef: { name: {{ .name }}, key: {{ .secretAccessKeyKey }} } }
{{- end }}
{{- end }}
{{- end -}}

{{/* The data dir (scratch) and, with a claim, the shared artifact folder. */}}
{{- define "browserfn.volumeMounts" -}}
- { name: tmp, mountPath: /tmp }
{{- if and (eq .Values.artifactStore.type "filesystem") .Values.artifactStore.filesystem.existingClaim }}
- { name: artifacts, mountPath: /var/lib/browserfn/artifacts }
{{- end }}
{{- end -}}
{{- define "browserfn.volumes" -}}
- { name: tmp, emptyDir: {} }
{{- if and (eq .Values.artifactStore.type "filesystem") .Values.artifactStore.filesystem.existingClaim }}
- { name: artifacts, persistentVolumeClaim: { claimName: {{ .Values.artifactStore.filesystem.existingClaim }} } }
{{- end }}
{{- end -}}

{{/* Restart the pods when their settings change (the Secrets generated once never do). */}}
{{- define "browserfn.podAnnotations" -}}
checksum/config: {{ include (print .Template.BasePath "/config.yaml") . | sha256sum }}
{{- end -}}
