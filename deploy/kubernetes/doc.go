// Package kubernetes holds no code: its directory ships the manifests that
// run gollm-bench as a Kubernetes Job (docs/cli.md#distributed-runs) —
// job.yaml (batch/v1, Indexed completion mode, ready for shards; the run id
// as its one label), config.yaml (the sweep's settings, one gollm-bench
// configuration file), pvc.yaml (the results volume) and kustomization.yaml
// (the ConfigMap made from config.yaml, the Job's name from the run id) —
// and its test renders them with kustomize's library and validates every
// object against the Kubernetes API's Go types, offline: unknown fields,
// wrong types, invalid names and labels fail it, as do labels that disagree
// with config.yaml and a run id written more than once. See README.md.
package kubernetes
