package record

import "testing"

func TestGRPCCodes(t *testing.T) {
	for _, tc := range []struct {
		code int
		name string
	}{
		{200, "200"}, {503, "503"}, {GRPCCode(0), "OK"}, {GRPCCode(14), "UNAVAILABLE"},
		{GRPCCode(16), "UNAUTHENTICATED"}, {GRPCCode(99), "UNKNOWN"},
	} {
		if got := CodeName(tc.code); got != tc.name {
			t.Errorf("CodeName(%d) = %q, want %q", tc.code, got, tc.name)
		}
	}
	if GRPCCode(0) != GRPCOK || !IsGRPC(GRPCOK) || IsGRPC(999) {
		t.Errorf("GRPCOK %d, IsGRPC(GRPCOK) %v, IsGRPC(999) %v", GRPCOK, IsGRPC(GRPCOK), IsGRPC(999))
	}
	def := DefaultSuccess()
	if !def.Has(GRPCOK) || def.Has(GRPCCode(14)) || !def.Has(200) || def.Has(400) {
		t.Error("DefaultSuccess: want every HTTP status below 400 and gRPC's OK, nothing else")
	}
	set, err := ParseCodeSet("ok, NOT_FOUND,200")
	if err != nil {
		t.Fatal(err)
	}
	if !set.Has(GRPCOK) || !set.Has(GRPCCode(5)) || !set.Has(200) || set.Has(GRPCCode(14)) {
		t.Errorf("ParseCodeSet(\"ok, NOT_FOUND,200\") holds the wrong codes")
	}
	for _, bad := range []string{"OK-UNKNOWN", "200-OK", "NOTFOUND"} {
		if _, err := ParseCodeSet(bad); err == nil {
			t.Errorf("ParseCodeSet(%q) succeeded", bad)
		}
	}
}
