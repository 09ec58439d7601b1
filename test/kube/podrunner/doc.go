// Command podrunner is the test cluster's kubelet, scheduler and
// kube-proxy in one process: it runs each container of a pod as a local
// process in a network namespace of its own, so that latlab's tests can
// drive a real kube-apiserver and kube-controller-manager on a machine
// that has no container runtime. test/kube/up.sh starts it; nothing in
// latlab itself knows it exists.
//
//	podrunner --dir DIR --kubeconfig FILE --cert FILE --key FILE --client-ca FILE \
//	    [--nodes 2] [--image NAME=PATH]... [--restart-backoff 10s] [--metrics-resolution 1s]
//	podrunner --dir DIR --cleanup
//
// What it does, as the component it stands in for:
//
//   - Nodes: registers --nodes Ready nodes (node-0, node-1, ...) whose
//     InternalIP is 127.0.0.1 and whose kubelet port is its HTTPS server,
//     and renews their Leases in kube-node-lease every 10 s.
//   - Scheduler: binds pending pods of the default scheduler to its nodes
//     in turn, honouring nodeSelector, required node affinity, the
//     NoSchedule and NoExecute taints of the Node objects (labels and
//     taints as kubectl label and kubectl taint leave them) against the
//     pods' tolerations, and the nodes' cpu, memory and pods; a pod no
//     node fits keeps PodScheduled=False with reason Unschedulable and
//     the scheduler's "0/2 nodes are available: ..." message. The node
//     lifecycle's own taints (node.kubernetes.io/...), pod affinity and
//     preemption are not implemented.
//   - Kubelet: gives each pod bound to its nodes a network namespace, a
//     veth pair and an address of the cluster's 198.18.S.0/24 (S is the
//     cluster's slot, below), and runs its containers there as processes:
//     the image names a local binary (--image NAME=PATH, else the pull
//     fails with ErrImagePull then ImagePullBackOff, as a kubelet
//     reports); a container's command replaces that entrypoint and its
//     args follow, $(VAR) expanded (a command whose program is named as
//     the image or its binary, latlab or /usr/local/bin/latlab, runs that
//     binary; any other program is the host's); env from values, fieldRef,
//     resourceFieldRef, ConfigMaps and Secrets, service links and HOSTNAME;
//     emptyDir, configMap, secret, downwardAPI, projected (with service
//     account tokens) and hostPath volumes bind-mounted in a private mount
//     namespace. It reports phase, conditions and container states like a
//     kubelet, runs readiness, liveness and startup probes (httpGet,
//     tcpSocket, exec), restarts containers by restartPolicy with
//     CrashLoopBackOff, serves /containerLogs for kubectl logs, and on
//     deletion sends SIGTERM, waits the grace period, SIGKILLs the process
//     group, removes the namespace and deletes the pod with grace 0.
//   - kube-proxy: puts each Service's ClusterIP on the host's lo as a /32
//     and runs a TCP proxy per ClusterIP:port that forwards each
//     connection to a ready endpoint from the EndpointSlices, in turn.
//     That is a userspace hop, kube-proxy's old userspace mode, not the
//     iptables or nftables rules a real cluster uses: this machine has
//     neither, so latency through a Service here includes a copy through
//     this process. UDP is not proxied. The kubernetes Service goes to
//     the API server's address in the runner's kubeconfig, so in-cluster
//     clients work with the token the runner mounts.
//   - metrics-server: serves the metrics API (metrics.k8s.io/v1beta1:
//     pods and nodes, get and list, label selectors) that kubectl top and
//     latlab read, registered with the API server's aggregator as
//     metrics-server registers it: the APIService v1beta1.metrics.k8s.io
//     of the Service kube-system/metrics-server, whose endpoint is the
//     pods' gateway and which the Service proxy sends to the runner's
//     metrics server on 127.0.0.1. A container's usage is its process
//     group's, read from /proc every --metrics-resolution: CPU over the
//     window between the last two samples (utime and stime, with those of
//     the children it reaped), and memory as the resident set, which
//     stands in for a cgroup's working set. A node's usage is the sum of
//     its pods'. The resolution is finer than metrics-server's default
//     15 s, so that short test runs see several windows.
//   - DNS: there is no DNS server. Each pod's /etc/hosts (the file "ip
//     netns exec" mounts from /etc/netns/NAME/hosts) names every Service:
//     NAME.NS, NAME.NS.svc and NAME.NS.svc.cluster.local, and NAME alone
//     for Services of the pod's own namespace; it is rewritten in place
//     when Services change. resolv.conf points at 127.0.0.1, where nothing
//     answers, so other names fail at once.
//
// Addresses: the cluster's slot S (0 to 255) is held by an abstract unix
// socket, @latlab-kube-slot-S, for as long as the runner lives, so two
// runners never share one; S is written to DIR/slot for up.sh, which
// derives from it the Service range 198.19.S.0/24 and its ports. Pods get
// 198.18.S.2 to .254; the host side of every pod's veth has 198.18.S.1/32
// and a /32 route to the pod; the pod's default route goes back to it.
// Pods reach each other through the host, which forwards only between the
// cluster's own veths: a routing rule sends packets from 198.18.S.0/24 to
// table 7000+S, which holds the pods' routes and an unreachable default,
// so nothing from a pod leaves the machine. Names: network namespaces
// llk-S-N, host veths llkS-N, where N is the last byte of the pod's
// address.
//
// Left on the host while it runs, and removed when it stops, at its next
// start for the same DIR, or by --cleanup: the namespaces, veths, rule,
// table and lo addresses above, /etc/netns/llk-S-N, and the mount points
// of volumes whose paths did not exist (a mount needs an existing file or
// directory to cover, so the runner creates an empty one, recorded in
// DIR/mountpoints, and removes it once no mount namespace uses it). Such
// a path may be shared by clusters side by side: an flock on
// /run/lock/latlab-kube-mountpoints.lock, a file that stays, keeps one
// cluster from removing a path another's container is about to mount on.
//
// Not implemented: exec, attach and port-forward (the API's pods/exec and
// friends), CPU and memory limits (no cgroups; OOMKilled is never
// reported), image pull policies, ConfigMap and Secret updates after a
// container starts, and ephemeral containers. The API server's pods/proxy
// and services/proxy work because pod addresses are routed from the host.
//
// Concurrency: every pod has one goroutine that owns its state; container
// processes, probes and the API report to it through its event channel.
// The Service proxy, the scheduler and the node heartbeats each run in a
// goroutine of their own; the log server reads log files that the
// containers' copiers append to.
package main
