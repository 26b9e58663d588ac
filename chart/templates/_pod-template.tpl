{{/* The pod template (metadata and spec) of the Deployment and of the fleet's StatefulSet: one pod, two controllers. */}}
{{- define "etcd-probe.podTemplate" -}}
{{- $scheme := include "etcd-probe.scheme" . | upper }}
{{- $tokenSecret := include "etcd-probe.tokenSecret" . -}}
metadata:
  labels:
    {{- include "etcd-probe.labels" . | nindent 4 }}
    {{- with .Values.podLabels }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  {{- with .Values.podAnnotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
spec:
  serviceAccountName: {{ include "etcd-probe.serviceAccountName" . }}
  # Only the modes that call an API server with the pod's own identity get a token.
  automountServiceAccountToken: {{ include "etcd-probe.needsToken" . | eq "true" }}
  # No <SERVICE>_SERVICE_HOST/_PORT variables: a Service named etcd-probe would inject ETCD_PROBE_*.
  enableServiceLinks: false
  {{- with .Values.imagePullSecrets }}
  imagePullSecrets:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with .Values.priorityClassName }}
  priorityClassName: {{ . }}
  {{- end }}
  securityContext:
    {{- toYaml .Values.podSecurityContext | nindent 4 }}
  topologySpreadConstraints:
    {{- if .Values.topologySpreadConstraints }}
    {{- toYaml .Values.topologySpreadConstraints | nindent 4 }}
    {{- else }}
    - maxSkew: 1
      topologyKey: kubernetes.io/hostname
      whenUnsatisfiable: ScheduleAnyway
      labelSelector:
        matchLabels:
          {{- include "etcd-probe.selectorLabels" . | nindent 10 }}
    - maxSkew: 1
      topologyKey: topology.kubernetes.io/zone
      whenUnsatisfiable: ScheduleAnyway
      labelSelector:
        matchLabels:
          {{- include "etcd-probe.selectorLabels" . | nindent 10 }}
    {{- end }}
  {{- with .Values.nodeSelector }}
  nodeSelector:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with .Values.affinity }}
  affinity:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with .Values.tolerations }}
  tolerations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  containers:
    - name: etcd-probe
      image: {{ include "etcd-probe.image" . | quote }}
      imagePullPolicy: {{ .Values.image.pullPolicy }}
      {{- if eq .Values.mode "fleet" }}
      # The image's entrypoint with a heap for a fleet (fleet.heapMiB) instead of one cluster's 128 MiB, and a
      # young generation of 16 MiB instead of 4: a fleet's rounds allocate all the time, and with 4 MiB V8
      # scavenges so often that it cost a fifth of a replica's CPU (docs/fleet.md).
      command: ["node", "--max-semi-space-size=16", "--max-old-space-size={{ int .Values.fleet.heapMiB }}", "dist/main.js"]
      {{- end }}
      ports:
        - name: http
          containerPort: 8080
          protocol: TCP
      env:
        {{- include "etcd-probe.containerEnv" . | trim | nindent 8 }}
      livenessProbe:
        httpGet:
          path: /livez
          port: http
          scheme: {{ $scheme }}
        {{- toYaml .Values.livenessProbe | nindent 8 }}
      readinessProbe:
        httpGet:
          path: /readyz
          port: http
          scheme: {{ $scheme }}
        {{- toYaml .Values.readinessProbe | nindent 8 }}
      resources:
        {{- include "etcd-probe.resources" . | nindent 8 }}
      securityContext:
        {{- toYaml .Values.securityContext | nindent 8 }}
      volumeMounts:
        # The root filesystem is read-only; /tmp is the one writable place.
        - name: tmp
          mountPath: /tmp
        {{- if and (eq .Values.mode "kubeconfig") (not .Values.kubeconfig.inCluster) }}
        - name: kubeconfig
          mountPath: /etc/etcd-probe/kubeconfig
          readOnly: true
        {{- end }}
        {{- if and .Values.etcdTLS.existingSecret (not (include "etcd-probe.clusterAPI" .)) }}
        - name: etcd-tls
          mountPath: /etc/etcd-probe/etcd-tls
          readOnly: true
        {{- end }}
        {{- if $tokenSecret }}
        - name: auth-token
          mountPath: /etc/etcd-probe/auth
          readOnly: true
        {{- end }}
        {{- if .Values.listener.tls.existingSecret }}
        - name: listener-tls
          mountPath: /etc/etcd-probe/listener-tls
          readOnly: true
        {{- if .Values.listener.tls.clientCA.existingSecret }}
        - name: listener-client-ca
          mountPath: /etc/etcd-probe/listener-client-ca
          readOnly: true
        {{- end }}
        {{- end }}
  # Secrets are mounted as whole directories (no subPath) so that renewed certificates reach the pod;
  # 288 is 0440: readable by the pod's fsGroup, not by others.
  volumes:
    - name: tmp
      emptyDir:
        sizeLimit: 64Mi
    {{- if and (eq .Values.mode "kubeconfig") (not .Values.kubeconfig.inCluster) }}
    - name: kubeconfig
      secret:
        secretName: {{ .Values.kubeconfig.existingSecret }}
        defaultMode: 288
        items:
          - key: {{ .Values.kubeconfig.secretKey }}
            path: kubeconfig
    {{- end }}
    {{- if and .Values.etcdTLS.existingSecret (not (include "etcd-probe.clusterAPI" .)) }}
    - name: etcd-tls
      secret:
        secretName: {{ .Values.etcdTLS.existingSecret }}
        defaultMode: 288
        items:
          - key: ca.crt
            path: ca.crt
          - key: tls.crt
            path: tls.crt
          - key: tls.key
            path: tls.key
    {{- end }}
    {{- if $tokenSecret }}
    - name: auth-token
      secret:
        secretName: {{ $tokenSecret }}
        defaultMode: 288
        items:
          - key: {{ .Values.listener.authToken.key }}
            path: token
    {{- end }}
    {{- if .Values.listener.tls.existingSecret }}
    - name: listener-tls
      secret:
        secretName: {{ .Values.listener.tls.existingSecret }}
        defaultMode: 288
        items:
          - key: tls.crt
            path: tls.crt
          - key: tls.key
            path: tls.key
    {{- if .Values.listener.tls.clientCA.existingSecret }}
    - name: listener-client-ca
      secret:
        secretName: {{ .Values.listener.tls.clientCA.existingSecret }}
        defaultMode: 288
        items:
          - key: {{ .Values.listener.tls.clientCA.key }}
            path: ca.crt
    {{- end }}
    {{- end }}
{{- end }}
