// The benchmarks' pod.
/** Like scheduler_perf's default pod: one pause container with a port, requests and limits (~0.8 KB of JSON as stored). */
export function benchPod(name: string, padBytes = 0): unknown {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels: { app: 'bench' }, ...(padBytes ? { annotations: { pad: 'x'.repeat(padBytes) } } : {}) },
    spec: {
      containers: [
        {
          name: 'pause',
          image: 'registry.k8s.io/pause:3.10',
          ports: [{ containerPort: 80 }],
          resources: { limits: { cpu: '100m', memory: '500Mi' }, requests: { cpu: '100m', memory: '500Mi' } },
        },
      ],
    },
  };
}
