package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// volume is a pod volume as a directory of the host.
type volume struct {
	path     string
	readOnly bool // configMap, secret, downwardAPI and projected volumes are
}

// volumeFile is a file of a volume the runner writes.
type volumeFile struct {
	data []byte
	mode os.FileMode
}

// prepareVolumes writes the pod's volumes under its directory: emptyDir
// as an empty directory, configMap, secret, downwardAPI and projected as
// their files, written once when the pod starts (not updated after);
// hostPath is the host's path itself.
func (w *podWorker) prepareVolumes(ctx context.Context) (map[string]volume, error) {
	vols := map[string]volume{}
	for _, v := range w.pod.Spec.Volumes {
		dir := filepath.Join(w.dir, "volumes", v.Name)
		var files map[string]volumeFile
		var err error
		src := v.VolumeSource
		switch {
		case src.EmptyDir != nil:
			if err := os.MkdirAll(dir, 0o777); err != nil {
				return nil, err
			}
			if err := os.Chmod(dir, 0o777); err != nil {
				return nil, err
			}
			vols[v.Name] = volume{path: dir}
			continue
		case src.HostPath != nil:
			p := src.HostPath.Path
			if t := src.HostPath.Type; t != nil {
				switch *t {
				case corev1.HostPathDirectoryOrCreate:
					err = os.MkdirAll(p, 0o755)
				case corev1.HostPathFileOrCreate:
					var f *os.File
					if f, err = os.OpenFile(p, os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
						err = f.Close()
					}
				}
			}
			if _, serr := os.Stat(p); err == nil && serr != nil {
				err = serr
			}
			if err != nil {
				return nil, fmt.Errorf("volume %s: hostPath: %w", v.Name, err)
			}
			vols[v.Name] = volume{path: p}
			continue
		case src.ConfigMap != nil:
			files, err = w.configMapFiles(ctx, src.ConfigMap.Name, src.ConfigMap.Items, src.ConfigMap.Optional, src.ConfigMap.DefaultMode)
		case src.Secret != nil:
			files, err = w.secretFiles(ctx, src.Secret.SecretName, src.Secret.Items, src.Secret.Optional, src.Secret.DefaultMode)
		case src.DownwardAPI != nil:
			files, err = w.downwardFiles(src.DownwardAPI.Items, src.DownwardAPI.DefaultMode)
		case src.Projected != nil:
			files, err = w.projectedFiles(ctx, src.Projected)
		default:
			err = errors.New("unsupported volume type (the pod runner has emptyDir, configMap, secret, downwardAPI, projected and hostPath)")
		}
		if err != nil {
			return nil, fmt.Errorf("volume %s: %w", v.Name, err)
		}
		if err := writeVolume(dir, files); err != nil {
			return nil, fmt.Errorf("volume %s: %w", v.Name, err)
		}
		vols[v.Name] = volume{path: dir, readOnly: true}
	}
	return vols, nil
}

// writeVolume makes dir hold exactly files.
func writeVolume(dir string, files map[string]volumeFile) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		p := filepath.Join(dir, name)
		if !strings.HasPrefix(p, dir+"/") {
			return fmt.Errorf("path %s leaves the volume", name)
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		f := files[name]
		if err := os.WriteFile(p, f.data, f.mode); err != nil {
			return err
		}
		if err := os.Chmod(p, f.mode); err != nil {
			return err
		}
	}
	return nil
}

// mode returns the file mode of an item, else the volume's default, else
// 0644.
func mode(item, def *int32) os.FileMode {
	switch {
	case item != nil:
		return os.FileMode(*item)
	case def != nil:
		return os.FileMode(*def)
	}
	return 0o644
}

// keyFiles returns the files of a ConfigMap's or Secret's data: each key
// under its own name, or the items' keys under their paths.
func keyFiles(kind, name string, data map[string][]byte, items []corev1.KeyToPath, optional bool, def *int32) (map[string]volumeFile, error) {
	files := map[string]volumeFile{}
	if len(items) == 0 {
		for k, v := range data {
			files[k] = volumeFile{data: v, mode: mode(nil, def)}
		}
		return files, nil
	}
	for _, it := range items {
		v, ok := data[it.Key]
		if !ok {
			if optional {
				continue
			}
			return nil, fmt.Errorf("%s %s has no key %s", kind, name, it.Key)
		}
		files[it.Path] = volumeFile{data: v, mode: mode(it.Mode, def)}
	}
	return files, nil
}

func (w *podWorker) configMapFiles(ctx context.Context, name string, items []corev1.KeyToPath, optional *bool, def *int32) (map[string]volumeFile, error) {
	data, err := w.r.configMap(ctx, w.pod.Namespace, name, optional)
	if err != nil {
		return nil, err
	}
	b := map[string][]byte{}
	for k, v := range data {
		b[k] = []byte(v)
	}
	return keyFiles("configmap", name, b, items, optional != nil && *optional, def)
}

func (w *podWorker) secretFiles(ctx context.Context, name string, items []corev1.KeyToPath, optional *bool, def *int32) (map[string]volumeFile, error) {
	data, err := w.r.secret(ctx, w.pod.Namespace, name, optional)
	if err != nil {
		return nil, err
	}
	return keyFiles("secret", name, data, items, optional != nil && *optional, def)
}

func (w *podWorker) downwardFiles(items []corev1.DownwardAPIVolumeFile, def *int32) (map[string]volumeFile, error) {
	files := map[string]volumeFile{}
	for _, it := range items {
		var v string
		var err error
		switch {
		case it.FieldRef != nil:
			v, err = w.fieldValue(it.FieldRef.FieldPath)
		case it.ResourceFieldRef != nil:
			v, err = w.resourceValue(nil, it.ResourceFieldRef)
		}
		if err != nil {
			return nil, err
		}
		files[it.Path] = volumeFile{data: []byte(v), mode: mode(it.Mode, def)}
	}
	return files, nil
}

// projectedFiles returns the files of all of a projected volume's
// sources; a service account token is requested from the API, bound to
// the pod, as a kubelet requests it (and not renewed).
func (w *podWorker) projectedFiles(ctx context.Context, p *corev1.ProjectedVolumeSource) (map[string]volumeFile, error) {
	files := map[string]volumeFile{}
	for _, s := range p.Sources {
		var more map[string]volumeFile
		var err error
		switch {
		case s.ConfigMap != nil:
			more, err = w.configMapFiles(ctx, s.ConfigMap.Name, s.ConfigMap.Items, s.ConfigMap.Optional, p.DefaultMode)
		case s.Secret != nil:
			more, err = w.secretFiles(ctx, s.Secret.Name, s.Secret.Items, s.Secret.Optional, p.DefaultMode)
		case s.DownwardAPI != nil:
			more, err = w.downwardFiles(s.DownwardAPI.Items, p.DefaultMode)
		case s.ServiceAccountToken != nil:
			var token string
			token, err = w.serviceAccountToken(ctx, s.ServiceAccountToken)
			more = map[string]volumeFile{s.ServiceAccountToken.Path: {data: []byte(token), mode: mode(nil, p.DefaultMode)}}
		default:
			err = errors.New("unsupported projected source")
		}
		if err != nil {
			return nil, err
		}
		maps.Copy(files, more)
	}
	return files, nil
}

func (w *podWorker) serviceAccountToken(ctx context.Context, s *corev1.ServiceAccountTokenProjection) (string, error) {
	sa := w.pod.Spec.ServiceAccountName
	if sa == "" {
		sa = "default"
	}
	var audiences []string
	if s.Audience != "" {
		audiences = []string{s.Audience}
	}
	tr, err := w.r.cs.CoreV1().ServiceAccounts(w.pod.Namespace).CreateToken(ctx, sa, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{
			Audiences:         audiences,
			ExpirationSeconds: s.ExpirationSeconds,
			BoundObjectRef:    &authenticationv1.BoundObjectReference{Kind: "Pod", APIVersion: "v1", Name: w.pod.Name, UID: w.pod.UID},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		return "", fmt.Errorf("requesting a token of service account %s: %w", sa, err)
	}
	return tr.Status.Token, nil
}

// configMap returns the data of a ConfigMap, binary data included; an
// optional one that does not exist is empty.
func (r *runner) configMap(ctx context.Context, ns, name string, optional *bool) (map[string]string, error) {
	cm, err := r.cs.CoreV1().ConfigMaps(ns).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) && optional != nil && *optional {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("configmap %q: %w", name, err)
	}
	data := maps.Clone(cm.Data)
	if data == nil {
		data = map[string]string{}
	}
	for k, v := range cm.BinaryData {
		data[k] = string(v)
	}
	return data, nil
}

// secret returns the data of a Secret; an optional one that does not
// exist is empty.
func (r *runner) secret(ctx context.Context, ns, name string, optional *bool) (map[string][]byte, error) {
	s, err := r.cs.CoreV1().Secrets(ns).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) && optional != nil && *optional {
		return map[string][]byte{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("secret %q: %w", name, err)
	}
	data := maps.Clone(s.Data)
	if data == nil {
		data = map[string][]byte{}
	}
	for k, v := range s.StringData {
		data[k] = []byte(v)
	}
	return data, nil
}

// containerMounts returns the bind mounts of container c, making their
// mount points on the host where they are missing. A subPath is made in
// its volume when it does not exist, as the kubelet makes it.
func (w *podWorker) containerMounts(c *corev1.Container, env *envList) ([]bindMount, error) {
	var mounts []bindMount
	for _, vm := range c.VolumeMounts {
		v, ok := w.volumes[vm.Name]
		if !ok {
			return nil, fmt.Errorf("volume mount %s: no volume of that name", vm.Name)
		}
		src := v.path
		sub := vm.SubPath
		if vm.SubPathExpr != "" {
			sub = expand(vm.SubPathExpr, env.get)
		}
		if sub != "" {
			src = filepath.Join(v.path, sub)
			if !strings.HasPrefix(src, v.path+"/") {
				return nil, fmt.Errorf("volume mount %s: subPath %s leaves the volume", vm.Name, sub)
			}
			if _, err := os.Stat(src); errors.Is(err, fs.ErrNotExist) {
				if err := os.MkdirAll(src, 0o755); err != nil {
					return nil, err
				}
			}
		}
		st, err := os.Stat(src)
		if err != nil {
			return nil, fmt.Errorf("volume mount %s: %w", vm.Name, err)
		}
		if err := w.r.mounts.ensure(vm.MountPath, st.IsDir()); err != nil {
			return nil, fmt.Errorf("volume mount %s: %w", vm.Name, err)
		}
		mounts = append(mounts, bindMount{Source: src, Target: vm.MountPath, ReadOnly: vm.ReadOnly || v.readOnly})
	}
	return mounts, nil
}
