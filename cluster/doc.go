// Package cluster is Kubernetes as a place to run experiments: it connects
// to a cluster as kubectl does, applies a variant's objects with
// server-side apply, waits until they are ready, keeps them while their
// trials run and deletes them afterwards; it runs a load generator in a
// pod and reaches pods through the API server's pod proxy, so that nothing
// but the Kubernetes API is needed from the machine latlab runs on.
//
// Everything latlab creates carries the labels of Labels: who made it
// (app.kubernetes.io/managed-by=latlab) and for which experiment, so that
// Leftovers can list and Clean remove what an interrupted experiment left
// behind.
//
//	c, err := cluster.Connect(cluster.Options{})        // $KUBECONFIG, ~/.kube/config or in-cluster
//	objs, err := cluster.ReadManifests("deploy/")       // a file or a folder of YAML
//	set, err := c.Apply(ctx, objs, "bench", cluster.Labels("sweep", "v1"))
//	err = c.WaitReady(ctx, set, 2*time.Minute)          // rolled out, endpoints ready
//	defer c.Delete(context.WithoutCancel(ctx), set)
//
// A Cluster is safe for concurrent use; a Set is not.
package cluster
