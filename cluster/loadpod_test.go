package cluster

import (
	"context"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// TestLoadPodToken holds where a load pod's token goes: into a Secret of
// the Job's name, owned by the Job, that the pod alone mounts read-only
// at TokenPath; never into the pod spec, its arguments or environment.
// And the pod carries no service-account credentials.
func TestLoadPodToken(t *testing.T) {
	const token = "c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00"
	lp := LoadPod{Namespace: "bench", Name: "latlab-load-x-1-abc", Image: "latlab", Port: 7070, ReadyPath: "/healthz",
		Args: []string{"agent", "--token-file", TokenPath}, Labels: map[string]string{}, Token: token}
	api, c := newFakeAPI(t)
	ctx := context.Background()
	if _, err := c.StartLoad(ctx, lp); err != nil {
		t.Fatal(err)
	}
	j, ok := api.get("/apis/batch/v1/namespaces/bench/jobs/" + lp.Name).(*batchv1.Job)
	if !ok {
		t.Fatalf("no Job %s in bench; requests %q", lp.Name, api.requests())
	}
	ps := j.Spec.Template.Spec
	if a := ps.AutomountServiceAccountToken; a == nil || *a {
		t.Error("the load pod mounts its service account's token")
	}
	var spec strings.Builder
	spec.WriteString(j.String())
	if strings.Contains(spec.String(), token) {
		t.Error("the token is in the Job")
	}
	if len(ps.Volumes) != 2 || ps.Volumes[1].Secret == nil || ps.Volumes[1].Secret.SecretName != lp.Name {
		t.Fatalf("volumes %+v, want /tmp and the Secret %s", ps.Volumes, lp.Name)
	}
	m := ps.Containers[0].VolumeMounts
	if len(m) != 2 || !m[1].ReadOnly || m[1].MountPath+"/"+ps.Volumes[1].Secret.Items[0].Path != TokenPath {
		t.Errorf("mounts %+v, want the token read-only at %s", m, TokenPath)
	}
	// Hardened: not root, no capability, a read-only root, seccomp.
	sc, pc := ps.Containers[0].SecurityContext, ps.SecurityContext
	if pc == nil || pc.RunAsNonRoot == nil || !*pc.RunAsNonRoot || pc.RunAsUser == nil || *pc.RunAsUser == 0 ||
		pc.SeccompProfile == nil || pc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Errorf("pod security %+v: want non-root with the runtime's seccomp profile", pc)
	}
	if sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem || sc.AllowPrivilegeEscalation == nil ||
		*sc.AllowPrivilegeEscalation || sc.Capabilities == nil || len(sc.Capabilities.Drop) != 1 || sc.Capabilities.Drop[0] != "ALL" {
		t.Errorf("container security %+v: want a read-only root, no escalation, every capability dropped", sc)
	}
	if m[0].MountPath != "/tmp" || ps.Volumes[0].EmptyDir == nil {
		t.Errorf("no writable /tmp: %+v", m[0])
	}
	s, ok := api.get("/api/v1/namespaces/bench/secrets/" + lp.Name).(*corev1.Secret)
	if !ok {
		t.Fatalf("no Secret %s in bench; requests %q", lp.Name, api.requests())
	}
	if string(s.Data[tokenKey]) != token || s.Type != corev1.SecretTypeOpaque {
		t.Errorf("secret %s: type %s, data %v; want the token", s.Name, s.Type, s.Data)
	}
	if o := s.OwnerReferences; len(o) != 1 || o[0].Kind != "Job" || o[0].Name != lp.Name || o[0].UID != j.UID {
		t.Errorf("secret owners %+v, want the Job", o)
	}
	if s.Labels[LabelRole] != RoleLoad {
		t.Errorf("secret labels %v, want the load role (latlab clean finds it)", s.Labels)
	}

	// Without a token, no Secret and no volume.
	lp.Name, lp.Token = "latlab-load-x-2-abc", ""
	if _, err := c.StartLoad(ctx, lp); err != nil {
		t.Fatal(err)
	}
	if s := api.get("/api/v1/namespaces/bench/secrets/" + lp.Name); s != nil {
		t.Error("a Secret without a token")
	}
}
