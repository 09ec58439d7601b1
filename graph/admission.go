package graph

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
)

// Admission makes a node a Kubernetes validating admission webhook that
// admits every request, after Delay for the requests of Users: a delay a
// real API server holds in its own handler chain, where priority and
// fairness counts it against the request's seat, without patching the
// server.
type Admission struct {
	Delay time.Duration
	Users []string // user names as the API server authenticated them
}

// maxAdmissionReview bounds the AdmissionReview a webhook reads: it
// carries the object under review, which etcd caps near 1.5 MiB.
const maxAdmissionReview = 4 << 20

// admit serves POST /admission: it reads an AdmissionReview (v1), waits
// Delay when its user is one of Users, and answers it allowed. A body that
// is not an AdmissionReview with a request is 400.
func (n *Node) admit(w http.ResponseWriter, r *http.Request) {
	a := n.cfg.Admission
	var review admissionv1.AdmissionReview
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxAdmissionReview))
	if err == nil {
		err = json.Unmarshal(body, &review)
	}
	if err == nil && review.Request == nil {
		err = errors.New("an AdmissionReview without a request")
	}
	if err != nil {
		writeError(w, n.cfg.Name, badRequest("admission: %v", err))
		return
	}
	if slices.Contains(a.Users, review.Request.UserInfo.Username) && a.Delay > 0 {
		t := time.NewTimer(a.Delay)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return // the API server gave up: nobody to answer
		}
	}
	out := admissionv1.AdmissionReview{
		TypeMeta: review.TypeMeta,
		Response: &admissionv1.AdmissionResponse{UID: review.Request.UID, Allowed: true},
	}
	b, err := json.Marshal(&out)
	if err != nil {
		writeError(w, n.cfg.Name, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
}
