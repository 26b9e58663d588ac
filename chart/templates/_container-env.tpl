{{/* The container's env list: one ETCD_PROBE_* entry per value set; an empty value leaves the service's default. */}}
{{- define "etcd-probe.containerEnv" -}}
{{- if eq .Values.mode "static" }}
- name: ETCD_PROBE_ENDPOINTS
  value: {{ join "," .Values.static.endpoints | quote }}
{{- else if eq .Values.mode "kubeconfig" }}
- name: ETCD_PROBE_KUBECONFIG
  value: {{ ternary "in-cluster" "/etc/etcd-probe/kubeconfig/kubeconfig" .Values.kubeconfig.inCluster | quote }}
{{- with .Values.kubeconfig.tlsSecret.name }}
- name: ETCD_PROBE_TLS_SECRET
  value: {{ printf "%s/%s" $.Values.kubeconfig.tlsSecret.namespace . | quote }}
{{- end }}
{{- else if eq .Values.mode "capi" }}
- name: ETCD_PROBE_CAPI_CLUSTER
  value: {{ printf "%s/%s" .Values.capi.cluster.namespace .Values.capi.cluster.name | quote }}
{{- else if eq .Values.mode "fleet" }}
{{- /* Not ETCD_PROBE_*: the service refuses variables of its prefix that are no setting. */}}
- name: POD_INDEX
  valueFrom:
    fieldRef:
      {{- /* The StatefulSet controller's label (Kubernetes 1.28 on): the pod's ordinal, 0 to replicas-1. */}}
      fieldPath: metadata.labels['apps.kubernetes.io/pod-index']
- name: ETCD_PROBE_CAPI_CLUSTER
  value: {{ include "etcd-probe.fleetTarget" . | quote }}
{{- with .Values.fleet.selector }}
- name: ETCD_PROBE_CAPI_SELECTOR
  value: {{ . | quote }}
{{- end }}
{{- /* The kubelet expands $(POD_INDEX), defined above; without the label it expands to nothing, and the
       service refuses "/<count>" at start rather than guess a shard. */}}
- name: ETCD_PROBE_SHARD
  value: {{ printf "$(POD_INDEX)/%d" (int .Values.replicaCount) | quote }}
{{- with .Values.fleet.refresh }}
- name: ETCD_PROBE_FLEET_REFRESH
  value: {{ . | quote }}
{{- end }}
{{- if not (kindIs "invalid" .Values.fleet.maxRoundsInFlight) }}
- name: ETCD_PROBE_MAX_ROUNDS_IN_FLIGHT
  value: {{ .Values.fleet.maxRoundsInFlight | int64 | toString | quote }}
{{- end }}
{{- if not (kindIs "invalid" .Values.fleet.holdConnections) }}
- name: ETCD_PROBE_FLEET_HOLD_CONNECTIONS
  value: {{ .Values.fleet.holdConnections | toString | quote }}
{{- end }}
{{- end }}
{{- if ne .Values.mode "static" }}
{{- with .Values.kube.nodeSelector }}
- name: ETCD_PROBE_NODE_SELECTOR
  value: {{ . | quote }}
{{- end }}
{{- with .Values.kube.connect }}
- name: ETCD_PROBE_CONNECT
  value: {{ . | quote }}
{{- end }}
{{- with .Values.kube.nodeGrace }}
- name: ETCD_PROBE_NODE_GRACE
  value: {{ . | quote }}
{{- end }}
{{- end }}
{{- if and .Values.etcdTLS.existingSecret (not (include "etcd-probe.clusterAPI" .)) }}
- name: ETCD_PROBE_CACERT
  value: /etc/etcd-probe/etcd-tls/ca.crt
- name: ETCD_PROBE_CERT
  value: /etc/etcd-probe/etcd-tls/tls.crt
- name: ETCD_PROBE_KEY
  value: /etc/etcd-probe/etcd-tls/tls.key
{{- end }}
{{- with .Values.config.cacheTTL }}
- name: ETCD_PROBE_CACHE_TTL
  value: {{ . | quote }}
{{- end }}
{{- with .Values.config.timeout }}
- name: ETCD_PROBE_TIMEOUT
  value: {{ . | quote }}
{{- end }}
{{- with .Values.config.policy }}
- name: ETCD_PROBE_POLICY
  value: {{ . | quote }}
{{- end }}
{{- if and (eq .Values.mode "static") (not (kindIs "invalid" .Values.config.discover)) }}
- name: ETCD_PROBE_DISCOVER
  value: {{ .Values.config.discover | toString | quote }}
{{- end }}
{{- with .Values.config.quotaBytes }}
- name: ETCD_PROBE_QUOTA_BYTES
  value: {{ . | toString | quote }}
{{- end }}
{{- if not (kindIs "invalid" .Values.config.maxRaftGap) }}
- name: ETCD_PROBE_MAX_RAFT_GAP
  value: {{ .Values.config.maxRaftGap | int64 | toString | quote }}
{{- end }}
{{- with .Values.config.logLevel }}
- name: ETCD_PROBE_LOG_LEVEL
  value: {{ . | quote }}
{{- end }}
{{- if include "etcd-probe.tokenSecret" . }}
- name: ETCD_PROBE_AUTH_TOKEN_FILE
  value: /etc/etcd-probe/auth/token
{{- with .Values.listener.authToken.routes }}
- name: ETCD_PROBE_AUTH_ROUTES
  value: {{ . | quote }}
{{- end }}
{{- end }}
{{- if .Values.listener.tls.existingSecret }}
- name: ETCD_PROBE_TLS_CERT
  value: /etc/etcd-probe/listener-tls/tls.crt
- name: ETCD_PROBE_TLS_KEY
  value: /etc/etcd-probe/listener-tls/tls.key
{{- if .Values.listener.tls.clientCA.existingSecret }}
- name: ETCD_PROBE_TLS_CLIENT_CA
  value: /etc/etcd-probe/listener-client-ca/ca.crt
{{- end }}
{{- end }}
{{- if not (kindIs "invalid" .Values.listener.maxConnections) }}
- name: ETCD_PROBE_MAX_CONNECTIONS
  value: {{ .Values.listener.maxConnections | int64 | toString | quote }}
{{- end }}
{{- with .Values.extraEnv }}
{{ toYaml . }}
{{- end }}
{{- end }}
