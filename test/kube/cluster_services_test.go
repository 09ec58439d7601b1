package kube

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// webObjects are a Deployment of two latlab serve pods, ready by their
// /healthz, with a ConfigMap volume at /etc/latlab as latlab graph
// manifests mounts one, and a Service in front of them.
func webObjects() (*corev1.ConfigMap, *appsv1.Deployment, *corev1.Service) {
	labels := map[string]string{"app": "web"}
	probe := &corev1.Probe{
		ProbeHandler:  corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromString("http")}},
		PeriodSeconds: 1, TimeoutSeconds: 5, FailureThreshold: 3,
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "web-config"}, Data: map[string]string{"greeting": "hello from a ConfigMap"}}
	dep := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](2),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					Containers: []corev1.Container{{
						Name: "latlab", Image: image,
						Args:           []string{"serve", "--name", "web", "--listen", "0.0.0.0:8080"},
						Ports:          []corev1.ContainerPort{{Name: "http", ContainerPort: 8080}},
						ReadinessProbe: probe, LivenessProbe: probe,
						VolumeMounts: []corev1.VolumeMount{{Name: "config", MountPath: "/etc/latlab", ReadOnly: true}},
					}},
					Volumes: []corev1.Volume{{Name: "config", VolumeSource: corev1.VolumeSource{
						ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "web-config"}},
					}}},
				},
			},
		},
	}
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: corev1.ServiceSpec{
			Selector: labels,
			Ports:    []corev1.ServicePort{{Name: "http", Port: 8080, TargetPort: intstr.FromString("http")}},
		},
	}
	return cm, dep, svc
}

// startWeb creates webObjects in ns and waits, 3 minutes at most, until
// both web pods are available; it returns the Service.
func (c *testCluster) startWeb(t *testing.T, ns string) *corev1.Service {
	t.Helper()
	ctx := context.Background()
	cm, dep, svc := webObjects()
	if _, err := c.cs.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.cs.AppsV1().Deployments(ns).Create(ctx, dep, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	svc, err := c.cs.CoreV1().Services(ns).Create(ctx, svc, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	poll(t, 3*time.Minute, "Deployment web available", c.webAvailable(ns))
	return svc
}

// webAvailable returns a poll function that is done once both web pods
// in ns are available.
func (c *testCluster) webAvailable(ns string) func() (bool, string) {
	return func() (bool, string) {
		d, err := c.cs.AppsV1().Deployments(ns).Get(context.Background(), "web", metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		for _, cond := range d.Status.Conditions {
			if cond.Type == appsv1.DeploymentAvailable && cond.Status == corev1.ConditionTrue && d.Status.AvailableReplicas == 2 {
				return true, ""
			}
		}
		return false, fmt.Sprintf("%d of 2 available, conditions %v", d.Status.AvailableReplicas, d.Status.Conditions)
	}
}

// attack is a container that sends n requests to url with latlab
// attack, one at a time, and fails unless every one succeeds.
func attack(name, url string, n int) corev1.Container {
	return corev1.Container{Name: name, Image: image,
		Args: []string{"attack", url, "-n", fmt.Sprint(n), "-c", "1", "--slo", "errors<1%", "--slo-strict"}}
}

// job is a Job of one pod that runs the containers once, with the
// volumes.
func job(name string, containers []corev1.Container, volumes ...corev1.Volume) *batchv1.Job {
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: batchv1.JobSpec{
			BackoffLimit: ptr.To[int32](0),
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever,
				Containers:    containers,
				Volumes:       volumes,
			}},
		},
	}
}

// clientJob reaches the web Service by its short name and by its full
// name, and a web pod by its address, 20 requests each, and prints what
// a pod sees of itself: the ConfigMap's file, its env and its hostname.
func clientJob(podIP string) *batchv1.Job {
	field := func(name, path string) corev1.EnvVar {
		return corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: path}}}
	}
	env := corev1.Container{
		Name: "env", Image: image,
		Command: []string{"sh", "-c", `cat /etc/latlab/greeting && echo && echo "pod=$POD_NAME ip=$POD_IP host=$(cat /proc/sys/kernel/hostname) ns=$POD_NAMESPACE svc=$WEB_SERVICE_HOST say=$SAY"`},
		Env: []corev1.EnvVar{
			field("POD_NAME", "metadata.name"), field("POD_IP", "status.podIP"), field("POD_NAMESPACE", "metadata.namespace"),
			{Name: "SAY", Value: "$(POD_NAME) says hi"},
		},
		VolumeMounts: []corev1.VolumeMount{{Name: "config", MountPath: "/etc/latlab"}},
	}
	return job("client", []corev1.Container{
		attack("short", "http://web:8080/", 20),
		attack("fqdn", "http://web.demo.svc.cluster.local:8080/", 20),
		attack("pod", "http://"+podIP+":8080/", 20),
		env,
	}, corev1.Volume{Name: "config", VolumeSource: corev1.VolumeSource{
		ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "web-config"}},
	}})
}

// TestClusterServices runs latlab in the test cluster as latlab will run
// there: a Deployment of latlab serve with a Service becomes available
// (its pods spread over both nodes, ready by their probes); a Job's pod
// reaches the Service by name through the runner's ClusterIP proxy, and a
// web pod by its address, and completes; logs come through the API, whole,
// by tail and limit, and followed; pods/proxy and services/proxy reach a
// pod's port; a deleted pod is replaced and its network removed; what
// latlab graph manifests writes runs as it is; down.sh leaves nothing
// behind.
func TestClusterServices(t *testing.T) {
	t.Parallel()
	_, hadEtcLatlab := os.Stat("/etc/latlab")
	c := upCluster(t, "--restart-backoff", "1s")
	ctx := context.Background()
	ns := c.namespace(t, "demo")
	svc := c.startWeb(t, ns)
	if want := netip.MustParsePrefix(fmt.Sprintf("198.19.%d.0/24", c.slot)); !want.Contains(netip.MustParseAddr(svc.Spec.ClusterIP)) {
		t.Errorf("ClusterIP %s, want one of %s", svc.Spec.ClusterIP, want)
	}

	pods := c.webPods(t, ns)
	nodes := map[string]bool{}
	for _, p := range pods {
		nodes[p.Spec.NodeName] = true
		ip := netip.MustParseAddr(p.Status.PodIP)
		if want := netip.MustParsePrefix(fmt.Sprintf("198.18.%d.0/24", c.slot)); !want.Contains(ip) {
			t.Errorf("pod %s has address %s, want one of %s", p.Name, ip, want)
		}
		if p.Status.HostIP != "127.0.0.1" || p.Status.Phase != corev1.PodRunning {
			t.Errorf("pod %s: hostIP %s, phase %s; want 127.0.0.1, Running", p.Name, p.Status.HostIP, p.Status.Phase)
		}
	}
	if len(nodes) != 2 {
		t.Errorf("the web pods run on %v, want both nodes", nodes)
	}

	t.Run("job through the Service", func(t *testing.T) {
		if _, err := c.cs.BatchV1().Jobs(ns).Create(ctx, clientJob(pods[0].Status.PodIP), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		c.waitJob(t, ns, "client", batchv1.JobComplete)
		p := c.jobPod(t, ns, "client")
		for _, name := range []string{"short", "fqdn", "pod"} {
			if got := c.logs(t, ns, p.Name, &corev1.PodLogOptions{Container: name}); !strings.Contains(got, "completed 20") {
				t.Errorf("attack %s: log lacks %q:\n%s", name, "completed 20", got)
			}
		}
		got := c.logs(t, ns, p.Name, &corev1.PodLogOptions{Container: "env"})
		want := fmt.Sprintf("hello from a ConfigMap\npod=%s ip=%s host=%s ns=%s svc=%s say=%s says hi\n",
			p.Name, p.Status.PodIP, p.Name, ns, svc.Spec.ClusterIP, p.Name)
		if got != want {
			t.Errorf("the env container printed\n%q\nwant\n%q", got, want)
		}
	})

	t.Run("logs", func(t *testing.T) {
		name := pods[0].Name
		all := c.logs(t, ns, name, &corev1.PodLogOptions{})
		if !strings.Contains(all, "listening on") {
			t.Errorf("log of %s lacks %q:\n%s", name, "listening on", all)
		}
		if got := c.logs(t, ns, name, &corev1.PodLogOptions{LimitBytes: ptr.To[int64](7)}); got != all[:7] {
			t.Errorf("limitBytes 7: got %q, want %q", got, all[:7])
		}
		lines := strings.SplitAfter(strings.TrimSuffix(all, "\n"), "\n")
		if got := c.logs(t, ns, name, &corev1.PodLogOptions{TailLines: ptr.To[int64](1)}); got != lines[len(lines)-1]+"\n" && got != lines[len(lines)-1] {
			t.Errorf("tailLines 1: got %q, want %q", got, lines[len(lines)-1])
		}
		if got := c.logs(t, ns, name, &corev1.PodLogOptions{Timestamps: true}); !strings.HasPrefix(got, time.Now().UTC().Format("2006-")) {
			t.Errorf("timestamps: got %q", got)
		}
		// Following a running container: its first line arrives, and the
		// stream stays open until the client ends it.
		fctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		stream, err := c.cs.CoreV1().Pods(ns).GetLogs(name, &corev1.PodLogOptions{Follow: true}).Stream(fctx)
		if err != nil {
			t.Fatal(err)
		}
		defer stream.Close()
		line, err := bufio.NewReader(stream).ReadString('\n')
		if err != nil || !strings.Contains(line, "listening on") {
			t.Errorf("following: first line %q, %v", line, err)
		}
	})

	t.Run("proxy", func(t *testing.T) {
		pctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		b, err := c.cs.CoreV1().Pods(ns).ProxyGet("http", pods[0].Name, "8080", "/healthz", nil).DoRaw(pctx)
		if err != nil || string(b) != "ok\n" {
			t.Errorf("pods/proxy: %q, %v", b, err)
		}
		b, err = c.cs.CoreV1().Services(ns).ProxyGet("http", "web", "http", "/healthz", nil).DoRaw(pctx)
		if err != nil || string(b) != "ok\n" {
			t.Errorf("services/proxy: %q, %v", b, err)
		}
	})

	t.Run("delete a pod", func(t *testing.T) {
		victim := pods[0]
		netns := fmt.Sprintf("llk-%d-%d", c.slot, netip.MustParseAddr(victim.Status.PodIP).As4()[3])
		if _, err := os.Stat("/run/netns/" + netns); err != nil {
			t.Fatalf("pod %s's network namespace: %v", victim.Name, err)
		}
		if err := c.cs.CoreV1().Pods(ns).Delete(ctx, victim.Name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		poll(t, 2*time.Minute, "pod "+victim.Name+" gone", func() (bool, string) {
			p, err := c.cs.CoreV1().Pods(ns).Get(ctx, victim.Name, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return true, ""
			}
			if err != nil {
				return false, err.Error()
			}
			return false, fmt.Sprintf("phase %s, deletion at %v", p.Status.Phase, p.DeletionTimestamp)
		})
		if _, err := os.Stat("/run/netns/" + netns); err == nil {
			t.Errorf("network namespace %s outlives its pod", netns)
		}
		poll(t, 3*time.Minute, "Deployment web available again", c.webAvailable(ns))
	})

	t.Run("graph manifests", func(t *testing.T) {
		// What latlab graph manifests writes runs as it is: a chain of
		// three services that call each other by their Services' names.
		latlab, err := latlabBinary()
		if err != nil {
			t.Fatal(err)
		}
		manifests, err := exec.Command(latlab, "graph", "manifests", "../../examples/graphs/chain.yaml", "--image", image).Output()
		if err != nil {
			t.Fatalf("latlab graph manifests: %v", err)
		}
		graph := c.namespace(t, "graph")
		apply := exec.Command("kubectl", "--kubeconfig", filepath.Join(c.dir, "kubeconfig"), "apply", "--namespace", graph, "-f", "-")
		apply.Stdin = bytes.NewReader(manifests)
		if out, err := apply.CombinedOutput(); err != nil {
			t.Fatalf("kubectl apply: %v\n%s", err, out)
		}
		for _, name := range []string{"root", "branch", "leaf"} {
			poll(t, 3*time.Minute, "Deployment "+name+" available", func() (bool, string) {
				d, err := c.cs.AppsV1().Deployments(graph).Get(ctx, name, metav1.GetOptions{})
				if err != nil {
					return false, err.Error()
				}
				return d.Status.AvailableReplicas == 1, fmt.Sprintf("conditions %v", d.Status.Conditions)
			})
		}
		if _, err := c.cs.BatchV1().Jobs(graph).Create(ctx, job("client", []corev1.Container{attack("root", "http://root:8080/", 10)}), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		c.waitJob(t, graph, "client", batchv1.JobComplete)
		p := c.jobPod(t, graph, "client")
		if got := c.logs(t, graph, p.Name, &corev1.PodLogOptions{}); !strings.Contains(got, "completed 10") {
			t.Errorf("attack on root: log lacks %q:\n%s", "completed 10", got)
		}
	})

	c.stop(t)
	if left := c.leftovers(t); len(left) > 0 {
		t.Errorf("down.sh left:\n%s", strings.Join(left, "\n"))
	}
	if hadEtcLatlab != nil {
		if _, err := os.Stat("/etc/latlab"); err == nil {
			t.Errorf("/etc/latlab, the volume's mount point, outlives the cluster")
		}
	}
}

// webPods returns the web Deployment's running pods.
func (c *testCluster) webPods(t *testing.T, ns string) []corev1.Pod {
	t.Helper()
	list, err := c.cs.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{LabelSelector: "app=web"})
	if err != nil {
		t.Fatal(err)
	}
	var pods []corev1.Pod
	for _, p := range list.Items {
		if p.DeletionTimestamp == nil && p.Status.Phase == corev1.PodRunning {
			pods = append(pods, p)
		}
	}
	if len(pods) != 2 {
		t.Fatalf("%d web pods run, want 2", len(pods))
	}
	return pods
}

// waitJob waits until Job name has condition want, failing t with its
// pods' states if it gets another terminal condition first.
func (c *testCluster) waitJob(t *testing.T, ns, name string, want batchv1.JobConditionType) {
	t.Helper()
	poll(t, 3*time.Minute, "Job "+name+" "+string(want), func() (bool, string) {
		j, err := c.cs.BatchV1().Jobs(ns).Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		for _, cond := range j.Status.Conditions {
			if cond.Status != corev1.ConditionTrue {
				continue
			}
			if cond.Type == want {
				return true, ""
			}
			if cond.Type == batchv1.JobComplete || cond.Type == batchv1.JobFailed {
				p := c.jobPod(t, ns, name)
				t.Fatalf("Job %s is %s (%s), not %s; its pod's containers: %+v", name, cond.Type, cond.Message, want, p.Status.ContainerStatuses)
			}
		}
		return false, fmt.Sprintf("conditions %v", j.Status.Conditions)
	})
}

// jobPod returns the one pod of Job name.
func (c *testCluster) jobPod(t *testing.T, ns, name string) *corev1.Pod {
	t.Helper()
	list, err := c.cs.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{LabelSelector: "job-name=" + name})
	if err != nil || len(list.Items) != 1 {
		t.Fatalf("pods of Job %s: %d, %v", name, len(list.Items), err)
	}
	return &list.Items[0]
}
