package main

import "github.com/latlab/latlab/load"

// pinCPUs keeps this process on the CPUs of a --cpus list such as "2-3";
// an empty list leaves it where it is. A bad list, or one the machine
// cannot pin to, is a usage error naming the flag.
func pinCPUs(list string) error {
	if list == "" {
		return nil
	}
	cpus, err := load.ParseCPUList(list)
	if err != nil {
		return usagef("--cpus: %v", err)
	}
	if err := load.PinCPUs(cpus); err != nil {
		return usagef("--cpus: %v", err)
	}
	return nil
}
