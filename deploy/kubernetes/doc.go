// Package kubernetes holds no code: its directory ships the manifests that
// run gollm-bench as a Kubernetes Job (docs/cli.md#distributed-runs) —
// job.yaml (batch/v1, Indexed completion mode, ready for shards),
// configmap.yaml (the sweep's arguments), pvc.yaml (the results volume) and
// kustomization.yaml — and its test validates them without a cluster: every
// document parses strictly, the Job passes every mandatory metadata flag of
// the scorecard, label values are valid and agree with the ConfigMap, and the
// volume mounts reach the PVC. See README.md for usage.
package kubernetes
