package main

import (
	"errors"
	"fmt"
	"hash/fnv"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// slots is how many clusters can run on one machine at once: each takes a
// /24 of 198.18.0.0/16 for its pods and one of 198.19.0.0/16 for its
// Services.
const slots = 256

// slot is a cluster's share of the machine's names and addresses. The
// runner that holds it owns everything named or addressed by it.
type slot int

func (s slot) podNet() netip.Prefix {
	return netip.PrefixFrom(netip.AddrFrom4([4]byte{198, 18, byte(s), 0}), 24)
}
func (s slot) serviceNet() netip.Prefix {
	return netip.PrefixFrom(netip.AddrFrom4([4]byte{198, 19, byte(s), 0}), 24)
}

// gateway is the host side's address on every pod's veth.
func (s slot) gateway() netip.Addr { return netip.AddrFrom4([4]byte{198, 18, byte(s), 1}) }

// podIP is the address of pod number n, 2 to 254.
func (s slot) podIP(n int) netip.Addr { return netip.AddrFrom4([4]byte{198, 18, byte(s), byte(n)}) }

func (s slot) netnsPrefix() string { return fmt.Sprintf("llk-%d-", s) }
func (s slot) vethPrefix() string  { return fmt.Sprintf("llk%d-", s) }
func (s slot) netns(n int) string  { return s.netnsPrefix() + strconv.Itoa(n) }
func (s slot) veth(n int) string   { return s.vethPrefix() + strconv.Itoa(n) }

// table is the routing table, and the priority of the rule, through which
// the host forwards the cluster's pod traffic.
func (s slot) table() int { return 7000 + int(s) }

// lockName is the abstract unix socket whose owner holds the slot.
func (s slot) lockName() string { return fmt.Sprintf("@latlab-kube-slot-%d", s) }

// claimSlot takes a free slot for the cluster in dir, trying first the one
// it had before, in dir/slot or dir/slot.last (so its leftovers are its
// own to remove), then one derived
// from dir's path, then the others in turn. The slot is held until the
// returned listener is closed or the process ends, however it ends; it is
// written to dir/slot.
func claimSlot(dir string) (slot, net.Listener, error) {
	var order []slot
	for _, f := range []string{"slot", "slot.last"} {
		if s, err := readSlotFile(filepath.Join(dir, f)); err == nil {
			order = append(order, s)
		}
	}
	h := fnv.New32a()
	h.Write([]byte(dir))
	start := int(h.Sum32() % slots)
	for i := range slots {
		order = append(order, slot((start+i)%slots))
	}
	for _, s := range order {
		ln, err := net.Listen("unix", s.lockName())
		if err != nil {
			continue
		}
		if err := writeSlot(dir, s); err != nil {
			ln.Close()
			return 0, nil, err
		}
		return s, ln, nil
	}
	return 0, nil, errors.New("every slot is taken: 256 clusters already run on this machine")
}

// holdSlot takes slot s if nobody holds it.
func holdSlot(s slot) (net.Listener, error) {
	ln, err := net.Listen("unix", s.lockName())
	if err != nil {
		return nil, fmt.Errorf("slot %d is held by another runner", s)
	}
	return ln, nil
}

// readSlot returns the slot the runner of dir holds or held last.
func readSlot(dir string) (slot, error) {
	s, err := readSlotFile(filepath.Join(dir, "slot"))
	if errors.Is(err, os.ErrNotExist) {
		return readSlotFile(filepath.Join(dir, "slot.last"))
	}
	return s, err
}

func readSlotFile(path string) (slot, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || n < 0 || n >= slots {
		return 0, fmt.Errorf("%s: not a slot: %q", path, b)
	}
	return slot(n), nil
}

// writeSlot writes dir/slot whole, so that up.sh never reads half of it.
func writeSlot(dir string, s slot) error {
	tmp := filepath.Join(dir, ".slot.tmp")
	if err := os.WriteFile(tmp, []byte(fmt.Sprintln(int(s))), 0o644); err != nil {
		return fmt.Errorf("writing the slot: %w", err)
	}
	return os.Rename(tmp, filepath.Join(dir, "slot"))
}
