//go:build !linux

package load

import "time"

func precise() func() { return func() {} }

func nap(d int64) { time.Sleep(time.Duration(d)) }
