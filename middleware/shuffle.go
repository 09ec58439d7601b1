package middleware

import "math"

// Shuffle sharding, as in API Priority and Fairness: each flow is dealt a
// hand of distinct queues from its level's deck, chosen by a hash of the
// flow, and a request joins the shortest queue of its flow's hand. Two flows
// share all their queues only if their hands coincide, so a heavy flow fills
// its own queues and rarely every queue of a light one.

const (
	// maxHashBits is the hash entropy a hand may use: 60 of the hash's 64
	// bits keeps the bias of the modular decoding below 1/16.
	maxHashBits = 60
	// maxHandSize bounds any hand maxHashBits allows (log2(19!) < 60 <
	// log2(20!)), rounded up, so hands fit in a fixed array on the stack.
	maxHandSize = 32
)

// flowHash returns a deterministic 64-bit hash of a flow: FNV-1a of its
// bytes, then the MurmurHash3 finaliser so that every input bit reaches every
// output bit (the deal divides the hash, so high bits matter as much as low).
func flowHash(flow string) uint64 {
	const (
		offset = 14695981039346656037
		prime  = 1099511628211
	)
	h := uint64(offset)
	for i := 0; i < len(flow); i++ {
		h ^= uint64(flow[i])
		h *= prime
	}
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9f3e53a63
	h ^= h >> 33
	return h
}

// deal fills hand with len(hand) distinct queue indexes in [0, queues)
// chosen by hash. The hash is read as a mixed-radix number: digit i, in base
// queues−i, picks among the queues not dealt yet, in ascending order. Every
// hand is equally likely for a uniform hash. len(hand) must not exceed
// queues or maxHandSize.
func deal(hash uint64, queues int, hand []int) {
	var dealt [maxHandSize]int // the cards dealt so far, ascending
	for i := range hand {
		n := uint64(queues - i)
		card := int(hash % n)
		hash /= n
		// card counts free queues; step over every dealt queue at or
		// below it to turn it into a queue index.
		j := 0
		for ; j < i && dealt[j] <= card; j++ {
			card++
		}
		copy(dealt[j+1:i+1], dealt[j:i])
		dealt[j] = card
		hand[i] = card
	}
}

// handBits returns the hash bits a hand of handSize from queues needs:
// log2 of queues × (queues−1) × … × (queues−handSize+1).
func handBits(queues, handSize int) float64 {
	bits := 0.0
	for i := 0; i < handSize; i++ {
		bits += math.Log2(float64(queues - i))
	}
	return bits
}
