{{/* Chart name, cut to the 63 characters a label value allows. */}}
{{- define "etcd-probe.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Full name of the release's objects: the release name, with the chart name unless it already holds it. */}}
{{- define "etcd-probe.fullname" -}}
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

{{/* Labels that select this release's pods; never change them after an install (selectors are immutable). */}}
{{- define "etcd-probe.selectorLabels" -}}
app.kubernetes.io/name: {{ include "etcd-probe.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/* Labels on every object. */}}
{{- define "etcd-probe.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "etcd-probe.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/component: etcd-health-probe
{{- end }}

{{/* The service account's name. */}}
{{- define "etcd-probe.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "etcd-probe.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* The container image. */}}
{{- define "etcd-probe.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}

{{/* "true" when the probe reads the workload cluster with its own service account (kubeconfig mode, in-cluster). */}}
{{- define "etcd-probe.workloadInCluster" -}}
{{- if and (eq .Values.mode "kubeconfig") .Values.kubeconfig.inCluster }}true{{ end }}
{{- end }}

{{/* "true" in the modes that run in a Cluster API management cluster: capi (one Cluster) and fleet (all of them). */}}
{{- define "etcd-probe.clusterAPI" -}}
{{- if or (eq .Values.mode "capi") (eq .Values.mode "fleet") }}true{{ end }}
{{- end }}

{{/* "true" when the pod needs a service account token: only modes that talk to the API with it. */}}
{{- define "etcd-probe.needsToken" -}}
{{- if or (include "etcd-probe.workloadInCluster" .) (include "etcd-probe.clusterAPI" .) }}true{{ end }}
{{- end }}

{{/* The connect method in force, resolved as the service resolves it (Cluster API modes always port-forward). */}}
{{- define "etcd-probe.connect" -}}
{{- if include "etcd-probe.clusterAPI" . }}
{{- "port-forward" }}
{{- else if .Values.kube.connect }}
{{- .Values.kube.connect }}
{{- else if include "etcd-probe.workloadInCluster" . }}
{{- "direct" }}
{{- else }}
{{- "port-forward" }}
{{- end }}
{{- end }}

{{/* Fleet mode's ETCD_PROBE_CAPI_CLUSTER: every namespace (*), or the Clusters of one (<namespace>/*). */}}
{{- define "etcd-probe.fleetTarget" -}}
{{- if .Values.fleet.namespace }}{{ printf "%s/*" .Values.fleet.namespace }}{{ else }}*{{ end }}
{{- end }}

{{/* Fleet mode's headless Service; the full name cut first, so that the suffix stays and it never takes the normal Service's name. */}}
{{- define "etcd-probe.headlessName" -}}
{{- printf "%s-headless" (include "etcd-probe.fullname" . | trunc 54 | trimSuffix "-") }}
{{- end }}

{{/* The label that tells the headless Service from the normal one (both select the same pods), for the ServiceMonitor. */}}
{{- define "etcd-probe.headlessLabel" -}}
etcd-probe/service: headless
{{- end }}

{{/* The Secret holding the listener's bearer token: the user's, or the one the chart generates; empty for none. */}}
{{- define "etcd-probe.tokenSecret" -}}
{{- if .Values.listener.authToken.existingSecret }}
{{- .Values.listener.authToken.existingSecret }}
{{- else if .Values.listener.authToken.generate }}
{{- printf "%s-token" (include "etcd-probe.fullname" .) | trunc 253 | trimSuffix "-" }}
{{- end }}
{{- end }}

{{/* "https" when the listener serves TLS. */}}
{{- define "etcd-probe.scheme" -}}
{{- if .Values.listener.tls.existingSecret }}https{{ else }}http{{ end }}
{{- end }}

{{/* Fails the render with a message naming the value, for what the schema cannot say. */}}
{{- define "etcd-probe.validate" -}}
{{- if eq .Values.mode "static" }}
{{- if not .Values.static.endpoints }}
{{- fail "static.endpoints: mode static (the default) needs at least one etcd client URL, e.g. --set 'static.endpoints={https://10.0.0.1:2379}'; or set mode=kubeconfig, mode=capi or mode=fleet (see docs/helm-chart.md)" }}
{{- end }}
{{- else if eq .Values.mode "kubeconfig" }}
{{- if not .Values.kubeconfig.inCluster }}
{{- $_ := required "kubeconfig.existingSecret: mode kubeconfig with inCluster=false needs the Secret holding the workload cluster's kubeconfig" .Values.kubeconfig.existingSecret }}
{{- end }}
{{- else if eq .Values.mode "capi" }}
{{- $_ := required "capi.cluster.namespace: mode capi needs the Cluster's namespace" .Values.capi.cluster.namespace }}
{{- $_ := required "capi.cluster.name: mode capi needs the Cluster's name" .Values.capi.cluster.name }}
{{- else if eq .Values.mode "fleet" }}
{{- if semverCompare "<1.28.0-0" .Capabilities.KubeVersion.Version }}
{{- fail (printf "mode: fleet needs Kubernetes 1.28 or later (this is %s): each replica takes its shard from the StatefulSet label apps.kubernetes.io/pod-index, which older versions do not set" .Capabilities.KubeVersion.Version) }}
{{- end }}
{{- if gt (int .Values.replicaCount) 1000 }}
{{- fail (printf "replicaCount: %d is more shards than the service takes (ETCD_PROBE_SHARD counts up to 1000)" (int .Values.replicaCount)) }}
{{- end }}
{{- if or .Values.capi.cluster.namespace .Values.capi.cluster.name }}
{{- fail "capi.cluster: mode fleet follows every Cluster of fleet.namespace (empty: every namespace) that matches fleet.selector; capi.cluster names one Cluster, for mode capi" }}
{{- end }}
{{- else }}
{{- fail (printf "mode: %q is not one of static, kubeconfig, capi, fleet" .Values.mode) }}
{{- end }}
{{- if and .Values.kube.portForwardNodes (not (and (include "etcd-probe.workloadInCluster" .) (eq (include "etcd-probe.connect" .) "port-forward"))) }}
{{- fail "kube.portForwardNodes: it limits the pods/portforward grant of kubeconfig mode in-cluster with kube.connect=port-forward, and the chart makes no such grant here (other modes port-forward, if at all, as the workload kubeconfig's user: limit that user's grant instead)" }}
{{- end }}
{{- end }}

{{/* A Kubernetes memory quantity (512Mi, 1Gi, 800M, 1073741824) in whole MiB; fails on a form it cannot read. */}}
{{- define "etcd-probe.mebibytes" -}}
{{- $q := toString . }}
{{- $n := regexFind "^[0-9]+(\\.[0-9]+)?" $q }}
{{- $unit := trimPrefix $n $q }}
{{- $factors := dict "" 0.00000095367431640625 "Ki" 0.0009765625 "Mi" 1.0 "Gi" 1024.0 "Ti" 1048576.0 "k" 0.0009536743164 "M" 0.95367431640625 "G" 953.67431640625 "T" 953674.31640625 }}
{{- if or (eq $n "") (not (hasKey $factors $unit)) }}
{{- fail (printf "resources.limits.memory: %q is not a memory quantity this chart reads (use Mi or Gi, e.g. 1Gi)" $q) }}
{{- end }}
{{- mulf (float64 $n) (get $factors $unit) | floor | int }}
{{- end }}

{{/*
The container's resources. Single-cluster modes: .Values.resources, 192Mi when no memory limit is set. Fleet
mode runs Node with fleet.heapMiB of heap (--max-old-space-size): without a limit set, the limit is the heap
plus 320Mi (plus 576Mi with fleet.holdConnections), what the fleet needs besides its heap (docs/fleet.md);
a limit set below the heap plus 160Mi fails the render, since Node would be killed before its heap is full.
*/}}
{{- define "etcd-probe.resources" -}}
{{- $resources := deepCopy (default dict .Values.resources) }}
{{- $limits := default dict $resources.limits }}
{{- if eq .Values.mode "fleet" }}
{{- $heap := int .Values.fleet.heapMiB }}
{{- if $limits.memory }}
{{- $limit := include "etcd-probe.mebibytes" $limits.memory | int }}
{{- if lt $limit (add $heap 160) }}
{{- fail (printf "resources.limits.memory: %s is below what fleet mode needs with fleet.heapMiB %d: at least %dMi (the heap plus 160Mi; leave it unset for %dMi)" (toString $limits.memory) $heap (add $heap 160) (add $heap (ternary 576 320 (eq (toString .Values.fleet.holdConnections) "true")))) }}
{{- end }}
{{- else }}
{{- $_ := set $limits "memory" (printf "%dMi" (add $heap (ternary 576 320 (eq (toString .Values.fleet.holdConnections) "true")))) }}
{{- end }}
{{- else if not $limits.memory }}
{{- $_ := set $limits "memory" "192Mi" }}
{{- end }}
{{- $_ := set $resources "limits" $limits }}
{{- toYaml $resources }}
{{- end }}
