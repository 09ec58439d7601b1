package graph

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// TestAdmission answers AdmissionReviews allowed, with their UID, after the
// delay for the users it names; what is not an AdmissionReview is 400.
func TestAdmission(t *testing.T) {
	const delay = 300 * time.Millisecond
	n, err := NewNode(NodeConfig{Name: "hook", Admission: &Admission{Delay: delay, Users: []string{"delay-adder"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	srv := httptest.NewServer(n.Handler())
	defer srv.Close()
	review := func(user string) (*admissionv1.AdmissionReview, time.Duration) {
		t.Helper()
		in := admissionv1.AdmissionReview{
			TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
			Request: &admissionv1.AdmissionRequest{UID: types.UID("uid-" + user), Operation: admissionv1.Create,
				UserInfo: authenticationv1.UserInfo{Username: user}},
		}
		b, _ := json.Marshal(&in)
		start := time.Now()
		resp, err := http.Post(srv.URL+"/admission", "application/json", bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		took := time.Since(start)
		var out admissionv1.AdmissionReview
		if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&out) != nil {
			t.Fatalf("%s: status %d", user, resp.StatusCode)
		}
		return &out, took
	}
	for _, user := range []string{"alice", "delay-adder"} {
		out, took := review(user)
		if out.Response == nil || !out.Response.Allowed || out.Response.UID != types.UID("uid-"+user) ||
			out.Kind != "AdmissionReview" || out.APIVersion != "admission.k8s.io/v1" {
			t.Errorf("%s: answered %+v; want allowed, uid-%s, an admission.k8s.io/v1 AdmissionReview", user, out.Response, user)
		}
		if user == "delay-adder" && took < delay {
			t.Errorf("delay-adder answered after %s, want at least %s", took, delay)
		}
	}
	for _, body := range []string{"not json", `{"kind":"AdmissionReview"}`} {
		resp, err := http.Post(srv.URL+"/admission", "application/json", bytes.NewReader([]byte(body)))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%q: status %d, want 400", body, resp.StatusCode)
		}
	}
	// Without Admission the route does not exist.
	plain, err := NewNode(NodeConfig{Name: "plain"})
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	w := httptest.NewRecorder()
	plain.Handler().ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/admission", nil))
	if w.Code == http.StatusOK {
		t.Errorf("a node without Admission answered /admission 200")
	}
}
