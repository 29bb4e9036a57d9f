export { resolveBinaries, CONTROL_PLANE_BINARIES, type BinaryPaths } from './binaries.ts';
export { TestCluster, type TestClusterOptions, type KubectlResult } from './cluster.ts';
export { ControlPlane, type ControlPlaneOptions, SERVICE_ACCOUNT_ISSUER, SERVICE_CLUSTER_IP_RANGE } from './control-plane.ts';
export { KubeApi, KubeApiError, type WatchEvent } from './kube-api.ts';
export { writeKubeconfig } from './kubeconfig.ts';
export { freePort } from './free-port.ts';
export { LocalNode, type LocalNodeOptions } from './node/local-node.ts';
export { DEFAULT_IMAGE_RULES, loadImageMap, type ImageMap, type ImageRule } from './node/image-map.ts';
export { waitFor, type WaitForOptions } from './wait-for.ts';
