package middleware

import (
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// checkHand fails t unless hand holds distinct queues in [0, queues).
func checkHand(t *testing.T, hand []int, queues int) {
	t.Helper()
	seen := map[int]bool{}
	for _, q := range hand {
		if q < 0 || q >= queues || seen[q] {
			t.Fatalf("hand %v from %d queues: %d repeated or out of range", hand, queues, q)
		}
		seen[q] = true
	}
}

func TestDealValid(t *testing.T) {
	for _, tc := range []struct{ queues, hand int }{{1, 1}, {2, 2}, {8, 2}, {64, 8}, {128, 6}, {19, 19}} {
		t.Run(fmt.Sprintf("%d of %d", tc.hand, tc.queues), func(t *testing.T) {
			hand := make([]int, tc.hand)
			for i := range 1000 {
				deal(flowHash(fmt.Sprint("flow-", i)), tc.queues, hand)
				checkHand(t, hand, tc.queues)
			}
		})
	}
}

// Every hash below queues×(queues−1)×… is a different ordered hand.
func TestDealIsBijection(t *testing.T) {
	const queues, size = 5, 3
	seen := map[[size]int]uint64{}
	for h := range uint64(5 * 4 * 3) {
		var hand [size]int
		deal(h, queues, hand[:])
		checkHand(t, hand[:], queues)
		if prev, dup := seen[hand]; dup {
			t.Fatalf("hashes %d and %d both deal %v", prev, h, hand)
		}
		seen[hand] = h
	}
}

func TestDealUniform(t *testing.T) {
	const queues, size, flows = 64, 8, 8000
	counts := make([]int, queues)
	hand := make([]int, size)
	for i := range flows {
		deal(flowHash(fmt.Sprint("user-", i)), queues, hand)
		for _, q := range hand {
			counts[q]++
		}
	}
	want := flows * size / queues // 1000
	for q, n := range counts {
		if n < want*3/4 || n > want*5/4 {
			t.Errorf("queue %d dealt %d times; want %d ± 25%%", q, n, want)
		}
	}
}

// Hands are part of the contract (users pick names knowing them): they must
// not change between versions.
func TestHandsStable(t *testing.T) {
	q, err := NewFairQueue(FairQueueConfig{}, nil) // 64 queues, hands of 8
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]int{}
	for _, u := range []string{"", "alice", "bob", "heavy", "light"} {
		got[u] = q.Hand(u)
	}
	want := map[string][]int{
		"":      {1, 41, 40, 13, 45, 48, 26, 53},
		"alice": {63, 28, 56, 7, 16, 27, 26, 15},
		"bob":   {57, 56, 38, 1, 7, 6, 11, 29},
		"heavy": {53, 60, 45, 63, 38, 33, 4, 54},
		"light": {1, 47, 41, 10, 23, 7, 61, 54},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("hands (-want +got):\n%s", diff)
	}
}

func FuzzDeal(f *testing.F) {
	f.Add(uint64(0), 64, 8)
	f.Add(^uint64(0), 19, 19)
	f.Add(uint64(12345), 1, 1)
	f.Fuzz(func(t *testing.T, hash uint64, queues, size int) {
		if queues < 1 || size < 1 || size > queues || size > maxHandSize || handBits(queues, size) > maxHashBits {
			t.Skip()
		}
		hand := make([]int, size)
		deal(hash, queues, hand)
		checkHand(t, hand, queues)
		again := make([]int, size)
		deal(hash, queues, again)
		if !slices.Equal(hand, again) {
			t.Fatalf("deal(%d, %d) gave %v then %v", hash, queues, hand, again)
		}
	})
}
