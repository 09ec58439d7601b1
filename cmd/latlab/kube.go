package main

import (
	"github.com/spf13/pflag"

	"github.com/latlab/latlab/cluster"
)

// kubeFlags are the flags that say which cluster a command talks to.
type kubeFlags struct {
	kubeconfig string
	context    string
}

// register adds the flags to fl.
func (k *kubeFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&k.kubeconfig, "kubeconfig", "", "kubeconfig file of the cluster (default $KUBECONFIG, else ~/.kube/config, else in-cluster)")
	fl.StringVar(&k.context, "context", "", "context of the kubeconfig to use (default its current one)")
}

// connect returns the cluster the flags name.
func (k *kubeFlags) connect() (*cluster.Cluster, error) {
	return cluster.Connect(k.options())
}

// options returns the flags as cluster.Options.
func (k *kubeFlags) options() cluster.Options {
	return cluster.Options{Kubeconfig: k.kubeconfig, Context: k.context}
}
