// Command reachable parses a BCP 47 tag with golang.org/x/text/language.Parse,
// which at the version go.mod requires (v0.3.6) has a known vulnerability
// (GO-2021-0113, fixed in v0.3.7): scripts/govulncheck.sh must fail on it.
package main

import (
	"fmt"
	"os"

	"golang.org/x/text/language"
)

func main() {
	tag, err := language.Parse(os.Args[1])
	fmt.Println(tag, err)
}
