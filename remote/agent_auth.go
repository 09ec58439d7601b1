package remote

import (
	"bytes"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
)

// Who may drive an agent. An agent acts only for its controller: every
// request but GET /healthz (the kubelet's readiness probe, which learns
// nothing) carries the token the controller made for it, in the
// TokenHeader header, and any other request is answered 401 before its
// body is read, and puts off nothing. The controller hands the token over
// where nobody else in the cluster reads it: to a load pod in a Secret
// that only the pod mounts, owned by its Job and deleted with it; to a
// local shard down a pipe. It appears in no argument, log, pod spec or
// results database.
//
// The token rides in a header of latlab's own rather than Authorization,
// which the Kubernetes API server's pod proxy takes for the controller's
// own credentials and never passes on.

// TokenHeader is the header of an agent's token.
const TokenHeader = "Latlab-Agent-Token"

// minToken is the least length of a token an agent takes.
const minToken = 32

// maxToken bounds a token file, so that a wrong path does not read a disk.
const maxToken = 4 << 10

// NewToken returns a fresh token: 32 random bytes, in hex.
func NewToken() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("making an agent token: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// ReadToken reads an agent's token from path: its content, trimmed of
// white space, at least 32 characters of printable ASCII.
func ReadToken(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxToken+1))
	if err != nil {
		return "", fmt.Errorf("reading %s: %w", path, err)
	}
	return checkToken(path, b)
}

// checkToken returns the token that b, read from where, holds.
func checkToken(where string, b []byte) (string, error) {
	if len(b) > maxToken {
		return "", fmt.Errorf("%s: over %d bytes: not a token", where, maxToken)
	}
	b = bytes.TrimSpace(b)
	if len(b) < minToken {
		return "", fmt.Errorf("%s: a token of %d characters; want at least %d", where, len(b), minToken)
	}
	for _, c := range b {
		if c <= ' ' || c > '~' {
			return "", fmt.Errorf("%s: a token holds printable ASCII only, without spaces", where)
		}
	}
	return string(b), nil
}

// authentic reports whether r carries the agent's token, in time that
// does not depend on how much of it matches.
func (a *Agent) authentic(r *http.Request) bool {
	got := r.Header.Get(TokenHeader)
	return subtle.ConstantTimeCompare([]byte(got), []byte(a.Token)) == 1
}

// refuse answers a request without the agent's token: 401, and the
// connection closed rather than its body read.
func refuse(w http.ResponseWriter) {
	w.Header().Set("Connection", "close")
	httpError(w, http.StatusUnauthorized, "this agent acts only for its controller: the request carries no valid %s header", TokenHeader)
}
