package load

import (
	"crypto/tls"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/latlab/latlab/yamlfile"
)

// A User is one identity a scenario sends as: its templates read the
// iteration's user as .User (.User.Name, .User.Token), for instance in
//
//	headers: {Authorization: "Bearer {{.User.Token}}"}
//
// A user may also hold a client certificate (cert and key files), which
// its requests to https URLs present in the TLS handshake: they go over
// connections of that user's own, never shared with another user.
type User struct {
	Name  string
	Token string

	cert *tls.Certificate // nil without cert and key
}

// users are a scenario's identities and their shares of the iterations.
type users struct {
	list []User
	cum  []int64 // cumulative weights
}

// of returns the user of iteration seq: iterations go to users in turn,
// each user taking as many in a row as its weight, so that every stretch
// of the weights' total holds each user's share exactly. All steps of an
// iteration are one user's.
func (u *users) of(seq int64) *User {
	if len(u.list) == 0 {
		return nil
	}
	total := u.cum[len(u.cum)-1]
	r := (seq%total + total) % total
	for i, c := range u.cum {
		if r < c {
			return &u.list[i]
		}
	}
	return &u.list[len(u.list)-1]
}

// userKeys are the fields of a user.
var userKeys = []string{"name", "token", "token_file", "cert", "key", "weight"}

// maxWeight bounds a user's weight, and so the stretch a schedule repeats.
const maxWeight = 1_000_000

// users decodes the users: list of a scenario.
func (d *decoder) users(n *yaml.Node) users {
	var u users
	var total int64
	d.List(n, "users", "user", func(i int, item *yaml.Node) {
		path := yamlfile.Index("users", i)
		usr, weight := User{}, int64(1)
		var tokenNode, fileNode, certNode, keyNode *yaml.Node
		good := d.Fields(item, path, []string{"name"}, func(key, field string, k, v *yaml.Node) bool {
			ok := false
			switch key {
			case "name":
				usr.Name, ok = d.Text(v, field)
			case "token":
				tokenNode = v
				usr.Token, ok = d.Text(v, field)
			case "token_file":
				fileNode = v
				ok = true
			case "cert":
				certNode, ok = v, true
			case "key":
				keyNode, ok = v, true
			case "weight":
				weight, ok = d.Integer(v, field, 1, maxWeight)
			default:
				d.Errorf(k, field, "%s", yamlfile.UnknownField(key, userKeys...))
			}
			return ok
		})
		if fileNode != nil {
			good = d.tokenFile(&usr, fileNode, path+".token_file", tokenNode != nil) && good
		}
		if certNode != nil || keyNode != nil {
			good = d.clientCert(&usr, item, certNode, keyNode, path) && good
		}
		if good && !ValidHeaderValue(usr.Token) {
			field, n := path+".token", tokenNode
			if fileNode != nil {
				field, n = path+".token_file", fileNode
			}
			d.Errorf(n, field, "holds characters a header value cannot")
			good = false
		}
		for _, o := range u.list {
			if good && o.Name == usr.Name {
				d.Errorf(item, path+".name", "duplicate name %q", usr.Name)
				good = false
			}
		}
		if good {
			total += weight
			u.list = append(u.list, usr)
			u.cum = append(u.cum, total)
		}
	})
	return u
}

// tokenFile reads a user's token from the file n names, relative to the
// scenario's folder, without its final line break.
func (d *decoder) tokenFile(u *User, n *yaml.Node, field string, withToken bool) bool {
	if withToken {
		d.Errorf(n, field, "cannot be used with token")
		return false
	}
	path, ok := d.Text(n, field)
	if !ok {
		return false
	}
	data, err := d.readFile(path)
	if err != nil {
		d.Errorf(n, field, "%v", err)
		return false
	}
	u.Token = strings.TrimRight(string(data), "\r\n")
	if u.Token == "" {
		d.Errorf(n, field, "%s is empty", path)
		return false
	}
	return true
}

// clientCert reads a user's client certificate and key from the files
// cert and key name, relative to the scenario's folder; both are needed.
func (d *decoder) clientCert(u *User, item, cert, key *yaml.Node, path string) bool {
	switch {
	case cert == nil:
		d.Errorf(item, path+".cert", "missing: key needs the certificate it belongs to")
		return false
	case key == nil:
		d.Errorf(item, path+".key", "missing: cert needs its private key")
		return false
	}
	read := func(n *yaml.Node, field string) ([]byte, bool) {
		name, ok := d.Text(n, field)
		if !ok {
			return nil, false
		}
		data, err := d.readFile(name)
		if err != nil {
			d.Errorf(n, field, "%v", err)
			return nil, false
		}
		return data, true
	}
	certPEM, ok1 := read(cert, path+".cert")
	keyPEM, ok2 := read(key, path+".key")
	if !ok1 || !ok2 {
		return false
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		d.Errorf(cert, path+".cert", "with its key: %v", err)
		return false
	}
	u.cert = &pair
	return true
}
