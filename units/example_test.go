package units_test

import (
	"fmt"
	"time"

	"github.com/latlab/latlab/units"
)

func Example() {
	fmt.Println(units.Duration(11300 * time.Nanosecond))
	fmt.Println(units.Seconds(0.002415))
	fmt.Println(units.Signed(-0.0000523))
	fmt.Println(units.Rate(1234.56), units.Rate(2.5))
	fmt.Println(units.ExactRate(2.5))
	fmt.Println(units.Bytes(1536))
	fmt.Println(units.Percent(0.0123, 2))
	// Output:
	// 11.3µs
	// 2.415ms
	// −52.3µs
	// 1235/s 2.50/s
	// 2.5/s
	// 1.5 kB
	// 1.23%
}
